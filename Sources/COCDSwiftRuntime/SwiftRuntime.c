#include "COCDSwiftRuntime.h"

// The Swift runtime's lookup of a method in a class's vtable by the method's descriptor (what the
// compiler emits for calls to methods of classes in resilient modules); a plain C function.
extern void *swift_lookUpClassMethod(const void *metadata, const void *method, const void *description);

// The symbols below are OpenCoreDataCore's, the one target that depends on this one (so they
// are always linked together). Each name is a mangled Swift name: if the method's name,
// signature or module changes, linking fails on the symbol rather than anything going wrong at
// run time.

// The nominal type descriptor of `NSManagedObject` (the description of its vtable).
extern const char OCDManagedObjectDescriptor __asm__("$s012OpenCoreDataB015NSManagedObjectCMn");

// The method descriptor of
// `NSManagedObject.validateValue(_: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey: String) throws`:
// the method's mangled name with the `Tq` suffix.
extern const char OCDValidateValueMethodDescriptor
    __asm__("$s012OpenCoreDataB015NSManagedObjectC13validateValue_6forKeyyAA33AutoreleasingUnsafeMutablePointerVyyXlSgG_SStKFTq");

const void *ocd_validateValueImplementation(const void *classMetadata) {
    return swift_lookUpClassMethod(classMetadata, &OCDValidateValueMethodDescriptor, &OCDManagedObjectDescriptor);
}
