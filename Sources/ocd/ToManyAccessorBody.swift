/// The body of one of Xcode's generated to-many accessors (`addToPages(_:)`, `removeFromPages(at:)`,
/// …) for platforms without Objective-C, where Core Data cannot make them at run time: one line
/// over the relationship's mutable set view. `ocd codegen` writes them for the accessors it
/// generates, `ocd port` for the `@NSManaged` ones it finds.
enum ToManyAccessorBody {
    /// The body of the accessor `signature` (`func addToPages(_ value: Page)`) of `relationship`,
    /// ordered or not.
    static func body(of signature: String, relationship: String, ordered: Bool) -> String? {
        guard let accessor = Accessor(signature) else { return nil }
        return accessor.body(relationship: relationship, ordered: ordered)
    }

    /// The body of the accessor `signature`, whose relationship is named after the method
    /// (`addToPages` → `pages`); ordered when its parameters say so or the relationship is among
    /// `orderedRelationships`.
    static func body(of signature: String, orderedRelationships: Set<String>) -> String? {
        guard let accessor = Accessor(signature), let first = accessor.key.first else { return nil }
        let relationship = first.lowercased() + accessor.key.dropFirst()
        let ordered = orderedRelationships.contains(relationship)
            || accessor.types.contains { $0.contains("NSOrderedSet") || $0.contains("NSIndexSet") || $0 == "Int" }
        return accessor.body(relationship: relationship, ordered: ordered)
    }

    /// An accessor's verb, the capitalised relationship name after it, and its parameters.
    private struct Accessor {
        let verb: String
        let key: String
        let names: [String]
        let types: [String]

        init?(_ signature: String) {
            let declaration = signature.hasPrefix("func ") ? signature.dropFirst("func ".count) : Substring(signature)
            guard let open = declaration.firstIndex(of: "("), let close = declaration.lastIndex(of: ")") else { return nil }
            let name = declaration[..<open].trimmingCharacters(in: .whitespaces)
            guard let verb = ["addTo", "removeFrom", "insertInto", "replace"].first(where: { name.hasPrefix($0) }) else { return nil }
            self.verb = verb
            key = String(name.dropFirst(verb.count))
            let parameters = declaration[declaration.index(after: open)..<close].split(separator: ",").map { parameter in
                let parts = parameter.split(separator: ":", maxSplits: 1)
                return (name: parts[0].split(separator: " ").last.map(String.init) ?? "",
                        type: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
            }
            names = parameters.map(\.name)
            types = parameters.map(\.type)
        }

        func body(relationship: String, ordered: Bool) -> String? {
            let view = ordered ? "mutableOrderedSetValue(forKey: \"\(relationship)\")" : "mutableSetValue(forKey: \"\(relationship)\")"
            let p = names
            switch (verb, types.count) {
            case ("addTo", 1) where types[0].contains("NSSet"):
                return "\(view).addObjects(from: \(p[0]).allObjects.compactMap { $0 as? NSManagedObject })"
            case ("addTo", 1) where types[0].contains("NSOrderedSet"):
                return "\(view).addObjects(from: \(p[0]).array.compactMap { $0 as? NSManagedObject })"
            case ("addTo", 1):
                return "\(view).add(\(p[0]))"
            case ("removeFrom", 1) where types[0].contains("NSSet"):
                return "let set = \(view)\nfor case let value as NSManagedObject in \(p[0]).allObjects { set.remove(value) }"
            case ("removeFrom", 1) where types[0].contains("NSOrderedSet"):
                return "let set = \(view)\nfor case let value as NSManagedObject in \(p[0]).array { set.remove(value) }"
            case ("removeFrom", 1) where types[0] == "Int":
                return "\(view).removeObject(at: \(p[0]))"
            case ("removeFrom", 1) where types[0].contains("NSIndexSet"):
                return "\(view).removeObjects(at: \(p[0]) as IndexSet)"
            case ("removeFrom", 1):
                return "\(view).remove(\(p[0]))"
            case ("insertInto", 2) where types[1].contains("NSIndexSet"):
                return "\(view).insert(\(p[0]), at: \(p[1]) as IndexSet)"
            case ("insertInto", 2):
                return "\(view).insert(\(p[0]), at: \(p[1]))"
            case ("replace", 2) where types[0].contains("NSIndexSet"):
                return "let set = \(view)\nfor (index, value) in zip(\(p[0]) as IndexSet, \(p[1])) { set.replaceObject(at: index, with: value) }"
            case ("replace", 2):
                return "\(view).replaceObject(at: \(p[0]), with: \(p[1]))"
            default:
                return nil
            }
        }
    }
}
