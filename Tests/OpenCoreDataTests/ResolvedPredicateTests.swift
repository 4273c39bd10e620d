import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// A predicate resolved against an entity: key paths as the model's properties, checked once,
/// kept per entity, and evaluated in memory with the same answers as `evaluate(with:)`.
@Suite struct ResolvedPredicateTests {
    private let model = TestModel.make()
    private var person: NSEntityDescription { model.entitiesByName["Person"]! }
    private var pet: NSEntityDescription { model.entitiesByName["Pet"]! }

    private func names(_ path: ResolvedKeyPath) -> [String] {
        path.steps.map { step in
            switch step {
            case .property(let property): property.name
            case .length: "length"
            case .collectionOperator(let name, let members): name + (members.map { "(" + names($0).joined(separator: ".") + ")" } ?? "")
            }
        }
    }

    @Test func keyPathsBecomeTheModelsProperties() throws {
        let path = try ResolvedKeyPath("owner.pets.@sum.weight", from: pet, allowsToMany: false, in: nil)
        #expect(names(path) == ["owner", "pets", "@sum(weight)"])
        guard case .property(let owner) = path.steps[0] else { Issue.record("owner is not a property"); return }
        #expect(owner === pet.relationshipsByName["owner"])
        #expect(names(try ResolvedKeyPath("name.length", from: person, allowsToMany: false, in: nil)) == ["name", "length"])
        #expect(names(try ResolvedKeyPath("pets.@count", from: person, allowsToMany: false, in: nil)) == ["pets", "@count"])
        let toMany = try ResolvedKeyPath("owner.pets.name", from: pet, allowsToMany: true, in: nil)
        #expect(toMany.firstToMany.map { ($0.toOnes.map(\.name), $0.toMany.name, $0.rest.count) }! == (["owner"], "pets", 1))
    }

    @Test func anUnknownKeyIsTheFetchError() throws {
        let error = #expect(throws: CocoaError.self) { try NSPredicate(format: "owner.shoeSize == 'x'").resolved(for: pet) }
        #expect(error?.code.rawValue == 134091)
        #expect(error?.message.contains("keypath owner.shoeSize not found in entity Person") == true, "\(error?.message ?? "")")
        let toMany = #expect(throws: CocoaError.self) { try NSPredicate(format: "pets.name == 'Rex'").resolved(for: person) }
        #expect(toMany?.message.contains("use ANY, ALL or NONE") == true)
        // Inside a function the key path is checked too.
        #expect(throws: CocoaError.self) { try NSPredicate(format: "uppercase:(shoeSize) == 'X'").resolved(for: person) }
    }

    /// A SUBQUERY member's keys are resolved from the member's entity, in memory as in SQL.
    @Test func aMembersUnknownKeyIsAnErrorInEveryStore() throws {
        let predicate = NSPredicate(format: "SUBQUERY(pets, $p, $p.shoeSize > 1).@count > 0")
        let error = #expect(throws: CocoaError.self) { try predicate.resolved(for: person) }
        #expect(error?.message.contains("keypath shoeSize not found in entity Pet") == true, "\(error?.message ?? "")")
        for kind in StoreKind.allCases {
            let stack = try TestStack(kind)
            stack.insert("Person", ["name": "Ada"])
            try stack.context.save()
            let fetchError = #expect(throws: CocoaError.self, "\(kind)") { try stack.fetch("Person", predicate) }
            #expect(fetchError?.code.rawValue == 134091, "\(kind)")
        }
    }

    /// A predicate that is its own tree's source (a comparison, a block) is not kept alive by
    /// its resolution: fetched through every store, it is freed with its request.
    @Test func aResolvedComparisonIsFreed() throws {
        for kind in StoreKind.allCases {
            let stack = try TestStack(kind)
            stack.insert("Person", ["name": "Ada", "age": 36])
            try stack.context.save()
            weak var freedComparison: NSPredicate?
            weak var freedFormat: NSPredicate?
            weak var freedCompound: NSPredicate?
            do {
                let comparison = NSComparisonPredicate(key: "age", .greaterThan, 30)
                let format = NSPredicate(format: "age > 30")
                let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [comparison, format])
                (freedComparison, freedFormat, freedCompound) = (comparison, format, compound)
                for predicate in [comparison, format, compound] {
                    #expect(try stack.fetch("Person", predicate).count == 1)
                    _ = try predicate.resolved(for: person)
                }
            }
            #expect(freedComparison == nil && freedFormat == nil && freedCompound == nil, "\(kind)")
        }
    }

    /// NOT of nothing is NOT TRUEPREDICATE everywhere: in memory, in the resolved tree, in SQL.
    @Test func notOfNothingIsFalse() throws {
        let predicate = NSCompoundPredicate(type: .not, subpredicates: [])
        #expect(predicate.predicateFormat == "NOT TRUEPREDICATE")
        #expect(!predicate.evaluate(with: nil))
        for kind in StoreKind.allCases {
            let stack = try TestStack(kind)
            stack.insert("Person", ["name": "Ada", "age": 36])
            try stack.context.save()
            #expect(try stack.fetch("Person", predicate).isEmpty, "\(kind)")
        }
    }

    /// The resolution is kept for one entity and made anew for another.
    @Test func theResolutionIsKeptPerEntity() throws {
        let predicate = NSPredicate(format: "name == 'Rex'")
        _ = try predicate.resolved(for: pet)
        _ = try predicate.resolved(for: person)
        let other = NSEntityDescription(name: "Thing")
        let error = #expect(throws: CocoaError.self) { try predicate.resolved(for: other) }
        #expect(error?.message.contains("not found in entity Thing") == true)
        _ = try predicate.resolved(for: person)
    }

    /// Evaluation over managed objects follows to-ones, to-manys, collection operators and
    /// lengths, and agrees with `evaluate(with:)` — including through a nil to-one.
    @Test func evaluationAgreesWithThePredicate() throws {
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada", "age": 36])
        let rex = stack.insert("Pet", ["name": "Rex", "weight": 10.0])
        let tom = stack.insert("Pet", ["name": "Tom", "weight": 2.5])
        let stray = stack.insert("Pet", ["name": "Stray", "weight": 4.0])
        rex.setValue(ada, forKey: "owner")
        tom.setValue(ada, forKey: "owner")
        let formats = [
            "owner.name == 'Ada'", "owner.age > 30", "owner == nil", "owner.pets.@count == 2", "owner.pets.@sum.weight > 12",
            "name.length == 3", "ANY owner.pets.name BEGINSWITH[c] 't'", "NOT (weight < 3 OR name ENDSWITH 'y')", "SELF == %@",
            "owner.name IN {'Ada', 'Bob'}", "uppercase:(name) == 'REX'", "TRUEPREDICATE", "weight BETWEEN {2, 5}",
            "TERNARY(weight > 3, name, 'light') == 'Rex'", "count:(owner.pets) == 2", "sum:(owner.pets.weight) > 12",
            "SUBQUERY(owner.pets, $p, $p.name BEGINSWITH 'T' AND $p.weight < weight).@count == 1", "ANY owner.pets.weight > 5",
            "abs:(weight - 5) < 2", "FUNCTION(name, 'uppercaseString') == 'REX'", "{1, 2, weight} CONTAINS 10",
            "SUBQUERY(owner.pets, $p, SUBQUERY($p.owner.pets, $q, $q.weight > 9).@count > 0).@count == 2",
        ]
        for format in formats {
            let predicate = NSPredicate(format: format, argumentArray: [rex])
            let resolved = try predicate.resolved(for: pet)
            for object in [rex, tom, stray] {
                #expect(resolved.evaluate(with: object) == predicate.evaluate(with: object), "\(format) on \(object.value(forKey: "name")!)")
            }
        }
        let matches = try NSPredicate(format: "owner.pets.@sum.weight > 12").resolved(for: pet)
        #expect([rex, tom, stray].filter { matches.evaluate(with: $0) }.count == 2)
    }
}
