import Foundation
import Synchronization

/// Finds the Swift class that a model names for an entity (`representedClassName`).
///
/// Xcode writes class names unqualified (`Item`), or with a leading dot for "Current Product
/// Module" (`.Item`); on Apple's platforms `@objc(Item)` makes such a name unique in the
/// Objective-C runtime. Swift on Linux finds a class only by its module-qualified name
/// (`MyApp.Item`), so OpenCoreData learns the modules and names of managed object classes as
/// code uses them: a class *announces* itself when it is named in a typed use —
/// `Item(context:)`, `Item.entity()`, `NSFetchRequest<Item>`, a `@Managed` relationship to it,
/// `NSEntityDescription.managedObjectClass = Item.self`, or
/// `NSManagedObjectModel.registerManagedObjectClasses(_:)`. A name is then resolved:
/// 1. qualified (`MyApp.Item`): by the Swift runtime;
/// 2. an announced class of that name (the one of the named module first);
/// 3. the name in each module an announced class lives in, then in the main executable's module.
///
/// So once one class of an app's module has been named, every entity whose class lives in that
/// module finds it. Entities whose class is not found yet make `NSManagedObject`s (or their
/// superentity's class), and find their class as soon as it is announced (`generation` changes).
enum ManagedObjectClassFinder {
    private struct Known {
        var announced: Set<ObjectIdentifier> = []
        var byName: [String: [NSManagedObject.Type]] = [:]
        var modules: [String] = []
    }

    private static let known = Mutex(Known())
    private static let generationCounter = Atomic<Int>(0)

    /// Changes whenever a class is announced for the first time: an entity that did not find its
    /// class looks again only then.
    static var generation: Int { generationCounter.load(ordering: .acquiring) }

    /// Makes `type` findable by its name, and its module a place to look for other classes.
    static func announce(_ type: NSManagedObject.Type) {
        guard type != NSManagedObject.self else { return }
        let isNew = known.withLock { known -> Bool in
            guard known.announced.insert(ObjectIdentifier(type)).inserted else { return false }
            known.byName[String(describing: type), default: []].append(type)
            let module = moduleName(of: type)
            if !known.modules.contains(module) { known.modules.append(module) }
            return true
        }
        if isNew { generationCounter.add(1, ordering: .releasing) }
    }

    /// The managed object class `name` names, or nil when none is known (yet).
    static func managedObjectClass(named name: String) -> NSManagedObject.Type? {
        guard !name.isEmpty, name != "NSManagedObject" else { return nil }
        let (module, plainName) = split(name)
        if !module.isEmpty, let found = _typeByName(name) as? NSManagedObject.Type { return found }
        let (announced, modules) = known.withLock { ($0.byName[plainName] ?? [], $0.modules) }
        if let found = announced.first(where: { moduleName(of: $0) == module }) ?? announced.first { return found }
        for candidate in modules + [mainModuleName] where candidate != module {
            if let found = _typeByName("\(candidate).\(plainName)") as? NSManagedObject.Type { return found }
        }
        return nil
    }

    /// `("MyApp", "Item")` for `MyApp.Item`, `("", "Item")` for `Item` and `.Item`.
    private static func split(_ name: String) -> (module: String, plainName: String) {
        guard let dot = name.lastIndex(of: ".") else { return ("", name) }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    private static func moduleName(of type: NSManagedObject.Type) -> String {
        String(String(reflecting: type).prefix { $0 != "." })
    }

    /// The module of the running executable, as SwiftPM names it after its product
    /// (`my-app` → `my_app`).
    private static let mainModuleName: String = {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
        return String(executable.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }()
}
