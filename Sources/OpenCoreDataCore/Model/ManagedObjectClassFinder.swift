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
/// 2. an announced top-level class of that name in the named module;
/// 3. the one top-level class of that name among the announced ones and the modules announced
///    classes live in (and the main executable's module); none when there are several.
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

    private static let known = LockedState(Known())
    private static let generationCounter = Atomic<Int>(0)

    /// Changes whenever a class is announced for the first time: an entity that did not find its
    /// class looks again only then.
    static var generation: Int { generationCounter.load(ordering: .acquiring) }

    /// Makes `type` findable by its name, and its module a place to look for other classes.
    static func announce(_ type: NSManagedObject.Type) {
        guard type != NSManagedObject.self else { return }
        let isNew = known.withLock { known -> Bool in
            guard known.announced.insert(ObjectIdentifier(type)).inserted else { return false }
            // Only a top-level class can be what an unqualified name means, as only such a class
            // gets an Objective-C name of its own on Apple's platforms.
            if isTopLevel(type) { known.byName[String(describing: type), default: []].append(type) }
            let module = moduleName(of: type)
            if !known.modules.contains(module) { known.modules.append(module) }
            return true
        }
        if isNew { generationCounter.add(1, ordering: .releasing) }
    }

    /// The managed object class `name` names, or nil when none is known (yet) or the name is
    /// ambiguous (top-level classes of that name in two modules, and the name says neither).
    static func managedObjectClass(named name: String) -> NSManagedObject.Type? {
        guard !name.isEmpty, name != "NSManagedObject" else { return nil }
        let (module, plainName) = split(name)
        if !module.isEmpty, let found = _typeByName(name) as? NSManagedObject.Type { return found }
        let (announced, modules) = known.withLock { ($0.byName[plainName] ?? [], $0.modules) }
        if let found = announced.first(where: { moduleName(of: $0) == module }) { return found }
        var found = announced
        for candidate in modules + [mainModuleName] where !found.contains(where: { moduleName(of: $0) == candidate }) {
            if let type = _typeByName("\(candidate).\(plainName)") as? NSManagedObject.Type { found.append(type) }
        }
        return found.count == 1 ? found[0] : nil
    }

    /// Whether `name`, as a model gives it, can mean `type`: its plain name is the class's, and
    /// its module (if it gives one) is the class's or no module here.
    static func name(_ name: String, canMean type: NSManagedObject.Type) -> Bool {
        let (module, plainName) = split(name)
        guard plainName == String(describing: type) else { return false }
        return module.isEmpty || module == moduleName(of: type) || _typeByName(name) == nil
    }

    private static func isTopLevel(_ type: NSManagedObject.Type) -> Bool {
        String(reflecting: type).split(separator: ".").count == 2
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
