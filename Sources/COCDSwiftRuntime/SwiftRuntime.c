#include "COCDSwiftRuntime.h"

// The Swift runtime's lookup of a method in a class's vtable by the method's descriptor (what the
// compiler emits for calls to methods of classes in resilient modules), and of a type's
// context descriptor (for a class: the description of its vtable) from its metadata.
extern void *swift_lookUpClassMethod(const void *metadata, const void *method, const void *description);
extern const void *swift_getTypeContextDescriptor(const void *metadata);

// The method descriptor the compiler emits for OpenCoreDataCore's
// `NSManagedObject.validateValue(_: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey: String) throws`.
// Its name is the method's mangled name with the `Tq` suffix: if the method's name, signature or
// module changes, linking fails on this symbol rather than anything going wrong at run time.
extern const char OCDValidateValueMethodDescriptor
    __asm__("$s012OpenCoreDataB015NSManagedObjectC13validateValue_6forKeyyAA33AutoreleasingUnsafeMutablePointerVyyXlSgG_SStKFTq");

const void *ocd_validateValueImplementation(const void *classMetadata, const void *managedObjectMetadata) {
    const void *description = swift_getTypeContextDescriptor(managedObjectMetadata);
    return swift_lookUpClassMethod(classMetadata, &OCDValidateValueMethodDescriptor, description);
}
