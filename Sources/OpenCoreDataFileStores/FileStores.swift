import OpenCoreDataCore

/// The coordinator finds the binary and XML stores through this conformance (see
/// `BuiltInStores` in the core module, which cannot name this one).
extension BuiltInStores: FileStoresProviding {
    package static var fileStoreClasses: [String: NSPersistentStore.Type] { [NSBinaryStoreType: BinaryStore.self, NSXMLStoreType: XMLStore.self] }
}
