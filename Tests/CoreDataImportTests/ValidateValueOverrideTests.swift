import Foundation
import Testing
import CoreData

/// A class overriding `validateValue(_:forKey:)` as Core Data code written for Apple's SDK does,
/// with an `AutoreleasingUnsafeMutablePointer<AnyObject?>`: it refuses an e-mail address without
/// an "@" and fills in an empty nickname.
class Member: NSManagedObject {
    @Managed var email: String?
    @Managed var nickname: String?
    @Managed var age: Int64

    /// The keys the override was asked about, in order (a property of the object, not of the model).
    var askedKeys: [String] = []

    override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        askedKeys.append(key)
        switch key {
        case "email":
            if let email = value.pointee as? String, !email.contains("@") {
                throw NSError(domain: NSCocoaErrorDomain, code: NSValidationStringPatternMatchingError, userInfo: [
                    NSValidationKeyErrorKey: key, NSValidationObjectErrorKey: self, NSLocalizedDescriptionKey: "\(email) is no e-mail address",
                ])
            }
        case "nickname":
            if (value.pointee as? String)?.isEmpty != false { value.pointee = "newcomer" as NSString }
            if value.pointee as? String == "number" { value.pointee = 42 as NSNumber }   // not a string: refused
        case "age":
            // Calls super first and clamps what the model refuses, as a coercing validator does.
            do {
                try super.validateValue(value, forKey: key)
            } catch let error as NSError where error.code == NSValidationNumberTooLargeError {
                value.pointee = 150 as NSNumber
            }
            return
        default:
            break
        }
        try super.validateValue(value, forKey: key)
    }
}

/// A subclass that inherits `Member`'s override without declaring one of its own.
final class Moderator: Member {}

/// `validateValue(_:forKey:)` overrides are called by saves for every attribute (Core Data's
/// `validateForInsert()`/`validateForUpdate()` iterate the properties through it) and by a
/// client's own `validateValue(&value, forKey:)`, in a SQLite store on disk.
@Suite struct ValidateValueOverrideTests {
    static func model() -> NSManagedObjectModel {
        let member = NSEntityDescription()
        member.name = "Member"
        member.managedObjectClassName = "Member"
        let email = NSAttributeDescription()
        email.name = "email"
        email.attributeType = .stringAttributeType
        let nickname = NSAttributeDescription()
        nickname.name = "nickname"
        nickname.attributeType = .stringAttributeType
        nickname.isOptional = true
        let age = NSAttributeDescription()
        age.name = "age"
        age.attributeType = .integer64AttributeType
        age.defaultValue = 0
        age.maxValue = 150
        member.properties = [email, nickname, age]
        let model = NSManagedObjectModel()
        model.entities = [member]
        return model
    }

    private func container(at url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Members", managedObjectModel: Self.model())
        container.persistentStoreDescriptions.first!.url = url
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private func storeURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ocd-validate-\(UUID().uuidString)/Members.sqlite")
    }

    @Test func aSaveAsksTheOverrideAboutEveryAttributeAndFailsWithItsError() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try container(at: url).viewContext
        let member = Member(context: context)
        member.email = "not-an-address"
        let error = #expect(throws: NSError.self) { try context.save() }
        #expect(error?.code == NSValidationStringPatternMatchingError)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "email")
        #expect(member.askedKeys == ["email", "nickname", "age"])
        #expect(context.insertedObjects.contains(member), "a failed save keeps its changes")

        member.email = "ada@example.org"
        try context.save()
        let reopened = try container(at: url).viewContext
        let saved = try reopened.fetch(NSFetchRequest<Member>(entityName: "Member"))
        #expect(saved.map(\.email) == ["ada@example.org"])
    }

    @Test func aValueTheOverrideReplacesIsWhatTheSaveWrites() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try container(at: url).viewContext
        let member = Member(context: context)
        member.email = "grace@example.org"
        member.nickname = ""
        try context.save()
        #expect(member.nickname == "newcomer")
        #expect(!context.hasChanges)

        let reopened = try container(at: url).viewContext
        let saved = try #require(try reopened.fetch(NSFetchRequest<Member>(entityName: "Member")).first)
        #expect(saved.nickname == "newcomer")
        // An update is validated through the override too.
        saved.nickname = nil
        try reopened.save()
        #expect(saved.nickname == "newcomer")
        #expect(!reopened.hasChanges)
        let third = try container(at: url).viewContext
        #expect(try third.fetch(NSFetchRequest<Member>(entityName: "Member")).map(\.nickname) == ["newcomer"])
    }

    @Test func theModelsRulesAreCheckedBySuperSoAnOverrideCanCatchThem() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try container(at: url).viewContext
        let member = Member(context: context)
        member.email = "alan@example.org"
        member.age = 200
        try context.save()
        #expect(member.age == 150, "the override caught super's 1610 and clamped the value")
        let reopened = try container(at: url).viewContext
        #expect(try reopened.fetch(NSFetchRequest<Member>(entityName: "Member")).map(\.age) == [150])
    }

    @Test func aReplacementOfTheWrongTypeFailsTheSaveNamingTheKey() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try container(at: url).viewContext
        let member = Member(context: context)
        member.email = "kurt@example.org"
        member.nickname = "number"
        let error = #expect(throws: NSError.self) { try context.save() }
        #expect(error?.code == NSManagedObjectValidationError)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "nickname")
        member.nickname = "kurt"
        try context.save()
        #expect(member.nickname == "kurt", "the refusal does not linger")
    }

    @Test func aClientsOwnCallReachesTheOverrideAndGetsTheReplacedValue() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let context = try container(at: url).viewContext
        let member = Member(context: context)
        var email: String? = "nobody"
        #expect(throws: NSError.self) { try member.validateValue(&email, forKey: "email") }
        var nickname: String? = ""
        try member.validateValue(&nickname, forKey: "nickname")
        #expect(nickname == "newcomer")
        var age: Int64? = 151
        try member.validateValue(&age, forKey: "age")
        #expect(age == 150, "super's 1610, caught by the override, which clamped the value")

        var raw: AnyObject? = "somebody" as NSString
        #expect(throws: NSError.self) {
            try withUnsafeMutablePointer(to: &raw) { try member.validateValue(AutoreleasingUnsafeMutablePointer($0), forKey: "email") }
        }
    }

    /// A save asks the override of an object whose class inherits it, and only then: the
    /// entity's other class, `NSManagedObject` itself, is not asked (it has nothing to ask).
    @Test func anInheritedOverrideIsAskedBySavesToo() throws {
        let url = storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = Self.model()
        let moderatorEntity = NSEntityDescription()
        moderatorEntity.name = "Moderator"
        moderatorEntity.managedObjectClassName = NSStringFromClass(Moderator.self)
        model.entities[0].subentities = [moderatorEntity]
        model.entities.append(moderatorEntity)
        let container = NSPersistentContainer(name: "Members", managedObjectModel: model)
        container.persistentStoreDescriptions.first!.url = url
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.viewContext
        let moderator = NSEntityDescription.insertNewObject(forEntityName: "Moderator", into: context)
        #expect(moderator is Moderator)
        moderator.setValue("mod@example.org", forKey: "email")
        moderator.setValue("", forKey: "nickname")
        try context.save()
        #expect((moderator as? Member)?.askedKeys == ["email", "nickname", "age"])
        #expect(moderator.value(forKey: "nickname") as? String == "newcomer")
    }
}
