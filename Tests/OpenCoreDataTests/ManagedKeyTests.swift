import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// A class written as Xcode writes `+CoreDataClass.swift` and `+CoreDataProperties.swift`: the
/// class empty, its properties in an extension (issue 18, item 4).
final class KeyedNote: NSManagedObject {}

extension KeyedNote {
    static let titleKey = ManagedKey<String?>("title")
    static let wordsKey = ManagedKey<Int64>("words")
    static let tagsKey = ManagedKey<Set<KeyedTag>>("tags")
    static let folderKey = ManagedKey<KeyedFolder?>("folder")

    var title: String? {
        get { self[KeyedNote.titleKey] }
        set { self[KeyedNote.titleKey] = newValue }
    }
    var words: Int64 {
        get { self[KeyedNote.wordsKey] }
        set { self[KeyedNote.wordsKey] = newValue }
    }
    var tags: Set<KeyedTag> {
        get { self[KeyedNote.tagsKey] }
        set { self[KeyedNote.tagsKey] = newValue }
    }
    var folder: KeyedFolder? {
        get { self[KeyedNote.folderKey] }
        set { self[KeyedNote.folderKey] = newValue }
    }
}

final class KeyedTag: NSManagedObject {
    @Managed var label: String?
    @Managed var notes: NSSet?
}

final class KeyedFolder: NSManagedObject {
    @Managed var name: String?
}

/// A class whose declared types do not fit its model.
final class MisfitNote: NSManagedObject {
    @Managed var words: String
}

extension MisfitNote {
    static let titleKey = ManagedKey<Int64>("title")
    var title: Int64 { self[MisfitNote.titleKey] }
}

@Suite struct ManagedKeyTests {
    static func model(noteClass: NSManagedObject.Type = KeyedNote.self) -> NSManagedObjectModel {
        let note = NSEntityDescription(name: "Note")
        note.managedObjectClass = noteClass
        let tag = NSEntityDescription(name: "Tag")
        tag.managedObjectClass = KeyedTag.self
        let folder = NSEntityDescription(name: "Folder")
        folder.managedObjectClass = KeyedFolder.self
        let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
        let notes = NSRelationshipDescription(name: "notes", destination: note, toMany: true)
        tags.inverseRelationship = notes
        notes.inverseRelationship = tags
        note.properties = [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
            NSAttributeDescription(name: "words", type: .integer64AttributeType, defaultValue: 0),
            tags, NSRelationshipDescription(name: "folder", destination: folder),
        ]
        tag.properties = [NSAttributeDescription(name: "label", type: .stringAttributeType), notes]
        folder.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [note, tag, folder]
        return model
    }

    @Test(arguments: StoreKind.allCases)
    func propertiesInAnExtensionRoundTripThroughTheStore(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        let note = KeyedNote(context: stack.context)
        note.title = "Groceries"
        note.words = 3
        let folder = KeyedFolder(context: stack.context)
        folder.name = "Home"
        note.folder = folder
        let tag = KeyedTag(context: stack.context)
        tag.label = "todo"
        note.tags = [tag]
        #expect(tag.notes?.count == 1)                     // the inverse is kept in step
        try stack.context.save()
        try stack.reopen()

        let fetched = try #require(try stack.context.fetch(NSFetchRequest<KeyedNote>(entityName: "Note")).first)
        #expect(fetched.title == "Groceries")
        #expect(fetched.words == 3)
        #expect(fetched.folder?.name == "Home")
        #expect(fetched.tags.map(\.label) == ["todo"])
        fetched.title = nil
        #expect(fetched.value(forKey: "title") == nil)
        #expect(fetched.changedValues().keys.contains("title"))
    }

    @Test func keyPathsOfExtensionPropertiesWorkInPredicatesAndSorts() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        for (title, words) in [("a", 5), ("b", 50), ("c", 500)] {
            let note = KeyedNote(context: stack.context)
            note.title = title
            note.words = Int64(words)
        }
        try stack.context.save()
        let request = NSFetchRequest<KeyedNote>(entityName: "Note")
        request.predicate = try NSPredicate(validating: #Predicate<KeyedNote> { $0.words > 10 })
        request.sortDescriptors = [NSSortDescriptor(keyPath: \KeyedNote.words, ascending: false)]
        #expect(try stack.context.fetch(request).map(\.title) == ["c", "b"])
    }

    @Test func aKeyServesTheEntitiesOfTwoModels() throws {
        let first = try TestStack(.inMemory, model: Self.model())
        let second = try TestStack(.inMemory, model: Self.model())
        let one = KeyedNote(entity: first.model.entitiesByName["Note"]!, insertInto: first.context)
        let two = KeyedNote(entity: second.model.entitiesByName["Note"]!, insertInto: second.context)
        one.title = "one"
        two.title = "two"
        #expect(one.title == "one")
        #expect(two.title == "two")
    }

    @Test func aManagedPropertyOfTheWrongTypeStopsNamingClassPropertyAndAttribute() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stack = try TestStack(.inMemory, model: ManagedKeyTests.model(noteClass: MisfitNote.self))
            let note = MisfitNote(context: stack.context)
            _ = note.words
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("@Managed var words of MisfitNote: String cannot hold the values of Integer 64 attribute 'words'"))
    }

    @Test func aKeyOfTheWrongTypeStopsNamingClassKeyAndAttribute() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stack = try TestStack(.inMemory, model: ManagedKeyTests.model(noteClass: MisfitNote.self))
            let note = MisfitNote(context: stack.context)
            _ = note.title
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("ManagedKey<Int64>(\"title\") of MisfitNote: Int64 cannot hold the values of String attribute 'title'"))
    }
}
