import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// What changes a version hash and what does not, caching, and the orders the digests use.
@Suite struct VersionHashBehaviourTests {
    /// Two entities joined by a one-to-many relationship, in a fresh editable model. Tests keep
    /// the fixture alive to the end, so that the model keeps the entities alive (descriptions
    /// refer to each other weakly).
    private struct Fixture {
        let model = NSManagedObjectModel()
        let person = NSEntityDescription(name: "Person")
        let pet = NSEntityDescription(name: "Pet")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType)
        let pets: NSRelationshipDescription

        init() {
            pets = NSRelationshipDescription(name: "pets", destination: pet, toMany: true)
            let owner = NSRelationshipDescription(name: "owner", destination: person)
            pets.inverseRelationship = owner
            owner.inverseRelationship = pets
            person.properties = [name, pets]
            pet.properties = [owner]
            model.entities = [person, pet]
        }
    }

    @Test func hashesAre32Bytes() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        #expect(f.person.versionHash.count == 32)
        #expect(f.name.versionHash.count == 32)
        #expect(f.pets.versionHash.count == 32)
        #expect(f.model.versionChecksum.count == 44)
        #expect(Data(base64Encoded: f.model.versionChecksum)?.count == 32)
    }

    /// Edits that Core Data's hash sees change the attribute's hash and its entity's.
    @Test(arguments: ["name", "optional", "transient", "modifier", "type", "history", "externalStorage"])
    func attributeChangesThatCount(change: String) {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let before = (f.name.versionHash, f.person.versionHash)
        switch change {
        case "name": f.name.name = "fullName"
        case "optional": f.name.isOptional = false
        case "transient": f.name.isTransient = true
        case "modifier": f.name.versionHashModifier = "2"
        case "type": f.name.attributeType = .URIAttributeType
        case "history": f.name.preservesValueInHistoryOnDeletion = true
        default: f.name.allowsExternalBinaryDataStorage = true
        }
        #expect(f.name.versionHash != before.0)
        #expect(f.person.versionHash != before.1)
    }

    /// Edits that Core Data's hash ignores leave both hashes alone.
    @Test(arguments: ["default", "transformer", "className", "indexed", "userInfo", "renaming", "rules"])
    func attributeChangesThatDoNotCount(change: String) {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let before = (f.name.versionHash, f.person.versionHash)
        switch change {
        case "default": f.name.defaultValue = "x"
        case "transformer": f.name.valueTransformerName = "SomeTransformer"
        case "className": f.name.attributeValueClassName = "NSString"
        case "indexed": f.name.isIndexed = true
        case "userInfo": f.name.userInfo = ["a": 1]
        case "renaming": f.name.renamingIdentifier = "oldName"
        default: f.name.regularExpression = ".+"; f.name.minValue = 1
        }
        #expect(f.name.versionHash == before.0)
        #expect(f.person.versionHash == before.1)
    }

    @Test(arguments: ["destination", "inverse", "maxCount", "minCount", "ordered", "optional"])
    func relationshipChangesThatCount(change: String) {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let before = (f.pets.versionHash, f.person.versionHash)
        switch change {
        case "destination": f.pets.destinationEntity?.name = "Animal"
        case "inverse": f.pets.inverseRelationship?.name = "keeper"
        case "maxCount": f.pets.maxCount = 5
        case "minCount": f.pets.minCount = 1
        case "ordered": f.pets.isOrdered = true
        default: f.pets.isOptional = false
        }
        #expect(f.pets.versionHash != before.0)
        #expect(f.person.versionHash != before.1)
    }

    @Test func deleteRuleDoesNotCount() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let before = f.person.versionHash
        f.pets.deleteRule = .cascadeDeleteRule
        #expect(f.person.versionHash == before)
    }

    /// A to-many with no maximum is `maxCount` 0, as in Xcode's model files; a "no limit" of -1
    /// or `Int.max` hashes as ff ff ff ff, which is a different hash.
    @Test func unboundedToManyHashesAsMaxCountZero() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        #expect(f.pets.maxCount == 0)
        let unbounded = f.pets.versionHash
        f.pets.maxCount = -1
        let minusOne = f.pets.versionHash
        f.pets.maxCount = Int.max
        #expect(f.pets.versionHash == minusOne)
        #expect(minusOne != unbounded)
        f.pets.maxCount = 0
        #expect(f.pets.versionHash == unbounded)
    }

    /// Transient properties have hashes of their own but do not enter their entity's; property
    /// order, the class name and indexes do not either.
    @Test func entityHashIgnores() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let before = f.person.versionHash
        let mood = NSAttributeDescription(name: "mood", type: .stringAttributeType)
        mood.isTransient = true
        f.person.properties = [f.pets, mood, f.name]
        f.person.managedObjectClassName = "Person"
        f.person.indexes = [NSFetchIndexDescription(name: "byName", elements: [NSFetchIndexElementDescription(property: f.name, collationType: .binary)])]
        f.person.userInfo = ["a": 1]
        f.person.renamingIdentifier = "Human"
        #expect(f.person.versionHash == before)
        #expect(mood.versionHash.count == 32)
    }

    @Test func entityChangesThatCount() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        var seen: Set<Data> = [f.person.versionHash]
        f.person.isAbstract = true
        #expect(seen.insert(f.person.versionHash).inserted)
        f.person.uniquenessConstraints = [["name"]]
        #expect(seen.insert(f.person.versionHash).inserted)
        f.person.versionHashModifier = "v2"
        #expect(seen.insert(f.person.versionHash).inserted)
        f.person.name = "Human"
        #expect(seen.insert(f.person.versionHash).inserted)
    }

    /// Constraint elements may be names or property descriptions; both hash the same. A
    /// sub-entity that repeats its parent's constraint hashes as one that does not.
    @Test func uniquenessConstraints() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        f.person.uniquenessConstraints = [["name"]]
        let byName = f.person.versionHash
        f.person.uniquenessConstraints = [[f.name]]
        #expect(f.person.versionHash == byName)

        let employee = NSEntityDescription(name: "Employee")
        f.person.subentities = [employee]
        f.model.entities = f.model.entities + [employee]
        let plain = employee.versionHash
        employee.uniquenessConstraints = [["name"]]
        #expect(employee.versionHash == plain)
        employee.uniquenessConstraints = [["name"], ["pets"]]
        #expect(employee.versionHash != plain)
    }

    /// A sub-entity's hash includes its parent's, so changing the parent changes the child's.
    @Test func subentityFollowsItsParent() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let employee = NSEntityDescription(name: "Employee")
        f.person.subentities = [employee]
        f.model.entities = f.model.entities + [employee]
        let before = employee.versionHash
        f.name.attributeType = .integer64AttributeType
        #expect(employee.versionHash != before)
    }

    /// An editable model never answers with a stale hash; a frozen one answers with the same
    /// hash it would compute.
    @Test func editableModelsAreNotCachedFrozenOnesAre() throws {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let first = f.model.entityVersionHashesByName
        let firstChecksum = f.model.versionChecksum
        f.name.attributeType = .integer32AttributeType
        #expect(f.model.entityVersionHashesByName["Person"] != first["Person"])
        #expect(f.model.entityVersionHashesByName["Pet"] == first["Pet"])
        #expect(f.model.versionChecksum != firstChecksum)

        let expected = f.model.entityVersionHashesByName
        _ = NSPersistentStoreCoordinator(managedObjectModel: f.model)
        #expect(f.model.isFrozen)
        #expect(f.model.entityVersionHashesByName == expected)
        #expect(f.person.versionHash == expected["Person"])
        #expect(f.model.entityVersionHashesByName == expected)
    }

    /// Names sort by UTF-8 bytes: upper case before lower case, and not case-insensitively.
    @Test func digestsUseByteOrder() {
        #expect(VersionHashing.sortedByBytes(["b", "a", "SyncableSettingsMetadata", "SyncFeatureEntity", "Z", "é", "ä"])
            == ["SyncFeatureEntity", "SyncableSettingsMetadata", "Z", "a", "b", "ä", "é"])
        let hashes = ["b": Data(repeating: 2, count: 32), "B": Data(repeating: 1, count: 32)]
        #expect(VersionHashing.checksum(of: hashes) == SHA256.hash(hashes["B"]! + hashes["b"]!).base64EncodedString())
        #expect(VersionHashing.digest(of: hashes)
            == SHA512.hash(Data("B".utf8) + hashes["B"]! + Data("b".utf8) + hashes["b"]!).base64EncodedString())
    }

    @Test func isConfigurationComparesNamesAndHashes() {
        let f = Fixture()
        defer { withExtendedLifetime(f) {} }
        let metadata: [String: Any] = [NSStoreModelVersionHashesKey: f.model.entityVersionHashesByName]
        #expect(f.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!f.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]))
        #expect(!f.model.isConfiguration(withName: "NoSuchConfiguration", compatibleWithStoreMetadata: metadata))

        var extra = f.model.entityVersionHashesByName
        extra["Ghost"] = Data(repeating: 0, count: 32)
        #expect(!f.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: extra]))

        // A configuration with only Person is compatible with metadata naming only Person.
        f.model.setEntities([f.person], forConfigurationName: "People")
        let peopleOnly: [String: Any] = [NSStoreModelVersionHashesKey: ["Person": f.person.versionHash]]
        #expect(f.model.isConfiguration(withName: "People", compatibleWithStoreMetadata: peopleOnly))
        #expect(!f.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: peopleOnly))

        f.name.attributeType = .dateAttributeType
        #expect(!f.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }
}
