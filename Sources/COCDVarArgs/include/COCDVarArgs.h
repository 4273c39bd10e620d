// Reading a C variable argument list, which Swift cannot do itself: what
// `NSPredicate(format:arguments:)` needs to take the `CVaListPointer` of `withVaList`.
#ifndef COCD_VARARGS_H
#define COCD_VARARGS_H

#include <stdarg.h>

/// How one argument was passed: its C type after the default argument promotions.
typedef enum {
    OCDVarArgInt = 0,      // int (%d, %i, %c, %hd)
    OCDVarArgUInt = 1,     // unsigned int (%u, %x, %o)
    OCDVarArgLong = 2,     // long long (%ld, %lld, %qd)
    OCDVarArgULong = 3,    // unsigned long long (%lu, %llu)
    OCDVarArgDouble = 4,   // double (%f, %e, %g, %a, and floats, which are promoted)
    OCDVarArgPointer = 5,  // a pointer (%@, %K: an object; %s: a C string)
} OCDVarArgKind;

/// One argument read.
typedef union {
    long long integer;
    unsigned long long unsignedInteger;
    double real;
    const void *pointer;
} OCDVarArgValue;

/// Reads `count` arguments of the kinds `kinds` from `arguments` into `values`, in one pass
/// (a `va_list` passed to a function may not be read further by its caller on every platform).
void ocd_read_var_args(va_list arguments, const int *kinds, int count, OCDVarArgValue *values);

#endif
