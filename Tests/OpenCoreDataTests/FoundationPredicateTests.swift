import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Foundation's `#Predicate` turned into `NSPredicate`: every predicate here must select, from
/// the SQLite store (as SQL) and from the in-memory store, exactly the objects Foundation's own
/// `Predicate.evaluate` selects.
@Suite struct FoundationPredicateTests {
    static func makeStack(_ kind: StoreKind) throws -> TestStack {
        let model = TestModel.make()
        model.entitiesByName["Person"]!.managedObjectClass = TypedPerson.self
        model.entitiesByName["Pet"]!.managedObjectClass = TypedPet.self
        let stack = try TestStack(kind, model: model)
        let people: [(String, Int64, String?, Double)] = [("Ada", 36, "ada@example.com", 1.65), ("Bo", 17, nil, 1.80),
                                                          ("Cyan", 52, "cy@example.org", 1.70), ("Dag", 8, nil, 1.20)]
        for (name, age, email, height) in people {
            let person = TypedPerson(context: stack.context)
            person.name = name
            person.age = age
            person.email = email
            person.height = height
            person.active = age >= 18
            for index in 0..<(name.count - 1) {
                let pet = TypedPet(context: stack.context)
                pet.name = "\(name.lowercased())-pet\(index)"
                pet.weight = Double(index) + 0.5
                pet.owner = person
            }
        }
        try stack.context.save()
        try stack.reopen()
        return stack
    }

    static let personPredicates: [(String, Predicate<TypedPerson>)] = [
        ("comparison", #Predicate<TypedPerson> { $0.age >= 18 }),
        ("and/or/not", #Predicate<TypedPerson> { ($0.age > 10 && $0.height < 1.75) || !($0.name != "Dag") }),
        ("contains", #Predicate<TypedPerson> { $0.name.contains("a") }),
        ("starts(with:)", #Predicate<TypedPerson> { $0.name.starts(with: "C") }),
        ("nil", #Predicate<TypedPerson> { $0.email == nil }),
        ("not nil", #Predicate<TypedPerson> { $0.email != nil }),
        ("??", #Predicate<TypedPerson> { ($0.email ?? "none") == "none" }),
        ("in a constant list", #Predicate<TypedPerson> { ["Ada", "Dag"].contains($0.name) }),
        ("arithmetic", #Predicate<TypedPerson> { $0.age + 10 > 40 }),
        ("division", #Predicate<TypedPerson> { $0.height / 2 > 0.84 }),
        ("remainder", #Predicate<TypedPerson> { $0.age % 2 == 0 }),
        ("integer division", #Predicate<TypedPerson> { $0.age / 5 == 7 }),
        ("Boolean attribute", #Predicate<TypedPerson> { $0.active }),
        ("ternary", #Predicate<TypedPerson> { ($0.age > 30 ? $0.height : 0) > 1.6 }),
        ("to-many count", #Predicate<TypedPerson> { $0.pets.count >= 3 }),
        ("to-many isEmpty", #Predicate<TypedPerson> { $0.pets.isEmpty }),
        ("contains(where:)", #Predicate<TypedPerson> { $0.pets.contains { $0.weight > 2 } }),
        ("allSatisfy", #Predicate<TypedPerson> { $0.pets.allSatisfy { $0.weight < 2 } }),
    ]

    static let petPredicates: [(String, Predicate<TypedPet>)] = [
        ("optional chaining", #Predicate<TypedPet> { $0.owner?.name == "Cyan" }),
        ("through a to-one", #Predicate<TypedPet> { ($0.owner?.age ?? 0) < 20 && $0.weight >= 0.5 }),
    ]

    @Test(arguments: StoreKind.allCases)
    func personPredicatesSelectWhatFoundationSelects(kind: StoreKind) throws {
        let stack = try Self.makeStack(kind)
        let everyone = try stack.context.fetch(NSFetchRequest<TypedPerson>(entityName: "Person"))
        for (label, predicate) in Self.personPredicates {
            let expected = Set(try everyone.filter { try predicate.evaluate($0) }.map(\.name))
            let request = NSFetchRequest<TypedPerson>(entityName: "Person")
            request.predicate = try NSPredicate(validating: predicate)
            let fetched = Set(try stack.context.fetch(request).map(\.name))
            #expect(fetched == expected, "\(label): \(request.predicate!.predicateFormat)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func petPredicatesSelectWhatFoundationSelects(kind: StoreKind) throws {
        let stack = try Self.makeStack(kind)
        let pets = try stack.context.fetch(NSFetchRequest<TypedPet>(entityName: "Pet"))
        for (label, predicate) in Self.petPredicates {
            let expected = Set(try pets.filter { try predicate.evaluate($0) }.compactMap(\.name))
            let request = NSFetchRequest<TypedPet>(entityName: "Pet")
            request.predicate = try NSPredicate(validating: predicate)
            let fetched = Set(try stack.context.fetch(request).compactMap(\.name))
            #expect(fetched == expected, "\(label): \(request.predicate!.predicateFormat)")
            #expect(!expected.isEmpty, "\(label) selects something")
        }
    }

    @Test func theTranslationReadsAsCoreDataWouldWriteIt() throws {
        // The classes' entities name their @Managed key paths: a model registering them must exist.
        let stack = try Self.makeStack(.inMemory)
        defer { withExtendedLifetime(stack) {} }
        let predicate = try NSPredicate(validating: #Predicate<TypedPerson> { $0.age >= 18 && $0.name.contains("a") })
        #expect(predicate.predicateFormat == "age >= 18 AND name CONTAINS \"a\"")
        let chained = try NSPredicate(validating: #Predicate<TypedPet> { $0.owner?.name == "Ada" })
        #expect(chained.predicateFormat == "owner.name == \"Ada\"")
        #expect(NSPredicate(#Predicate<TypedPerson> { $0.pets.isEmpty })?.predicateFormat == "pets.@count == 0")
    }

    /// A class registered with a model in use and with another still being set up: turning a
    /// `#Predicate` into an `NSPredicate` reads the one in use and leaves the other editable
    /// (tests running side by side used to freeze each other's models).
    @Test func resolvingKeyPathsLeavesAModelBeingSetUpEditable() throws {
        let stack = try Self.makeStack(.inMemory)
        defer { withExtendedLifetime(stack) {} }
        let settingUp = TestModel.make()
        settingUp.entitiesByName["Person"]!.managedObjectClass = TypedPerson.self
        let predicate = try NSPredicate(validating: #Predicate<TypedPerson> { $0.age >= 18 })
        #expect(predicate.predicateFormat == "age >= 18")
        #expect(!settingUp.isFrozen)
        settingUp.entitiesByName["Pet"]!.managedObjectClass = TypedPet.self
    }

    @Test func whatHasNoEquivalentIsNamed() throws {
        let stack = try Self.makeStack(.inMemory)
        defer { withExtendedLifetime(stack) {} }
        let predicate = #Predicate<TypedPerson> { $0.name.count == $0.age.bitWidth }
        #expect(NSPredicate(predicate) == nil)
        let error = try #require(throws: PredicateConversionError.self) { try NSPredicate(validating: predicate) }
        #expect(error.description.hasPrefix("Can't turn the #Predicate into an NSPredicate"))
    }
}

/// Sort descriptors from Swift key paths and Foundation's `SortDescriptor`.
@Suite struct KeyPathSortDescriptorTests {
    @Test(arguments: StoreKind.allCases)
    func keyPathSortDescriptorsSortAsTheirKeys(kind: StoreKind) throws {
        let stack = try FoundationPredicateTests.makeStack(kind)
        let byAge = NSSortDescriptor(keyPath: \TypedPerson.age, ascending: false)
        #expect(byAge.key == "age" && !byAge.ascending)
        let request = NSFetchRequest<TypedPerson>(entityName: "Person")
        request.sortDescriptors = [byAge]
        #expect(try stack.context.fetch(request).map(\.name) == ["Cyan", "Ada", "Bo", "Dag"])
        let byName = NSSortDescriptor(SortDescriptor(\TypedPerson.name, comparator: .lexical))
        #expect(byName.key == "name" && byName.ascending && byName.selectorName == "compare:")
        let reversed = NSSortDescriptor(SortDescriptor(\TypedPerson.height, order: .reverse))
        #expect(reversed.key == "height" && !reversed.ascending && reversed.selectorName == "compare:")
        let throughOwner = NSSortDescriptor(keyPath: \TypedPet.weight, ascending: true)
        #expect(throughOwner.key == "weight")
    }
}
