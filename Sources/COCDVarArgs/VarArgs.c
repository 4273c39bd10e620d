#include "COCDVarArgs.h"

void ocd_read_var_args(va_list arguments, const int *kinds, int count, OCDVarArgValue *values) {
    for (int index = 0; index < count; index++) {
        switch (kinds[index]) {
        case OCDVarArgInt: values[index].integer = va_arg(arguments, int); break;
        case OCDVarArgUInt: values[index].unsignedInteger = va_arg(arguments, unsigned int); break;
        case OCDVarArgLong: values[index].integer = va_arg(arguments, long long); break;
        case OCDVarArgULong: values[index].unsignedInteger = va_arg(arguments, unsigned long long); break;
        case OCDVarArgDouble: values[index].real = va_arg(arguments, double); break;
        default: values[index].pointer = va_arg(arguments, const void *); break;
        }
    }
}
