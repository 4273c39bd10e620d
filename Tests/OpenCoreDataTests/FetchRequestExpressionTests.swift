import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSFetchRequestExpression` (`FETCH(request, context, countOnly)`, Apple's
/// `NSFetchRequestExpression` documentation): parsed, printed, evaluated against a real store,
/// and used as an entity mapping's source expression in the form Xcode's mapping editor writes.
@Suite struct FetchRequestExpressionTests {
    /// A context on a SQLite store holding three notes, two of them starred.
    static func notes(in directory: TemporaryDirectory) throws -> NSManagedObjectContext {
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType),
                           NSAttributeDescription(name: "starred", type: .booleanAttributeType, defaultValue: false)]
        let model = NSManagedObjectModel()
        model.entities = [note]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: directory.file("Notes.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (title, starred) in [("a", true), ("b", false), ("c", true)] {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            object.setValue(title, forKey: "title")
            object.setValue(starred, forKey: "starred")
        }
        try context.save()
        return context
    }

    @Test func aFetchExpressionIsTheObjectsOrTheirCount() throws {
        let directory = TemporaryDirectory()
        let context = try Self.notes(in: directory)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.predicate = NSPredicate(format: "starred == YES")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]

        let fetch = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: request),
                                                        context: NSExpression(forConstantValue: context), countOnly: false)
        #expect(fetch.expressionType == NSFetchRequestExpressionType)
        let objects = try #require(fetch.expressionValue(with: nil, context: nil) as? [Any])
        #expect(objects.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String } == ["a", "c"])

        // Parsed, with the request and context as variables.
        let counting = try NSExpression(validatingFormat: "FETCH($request, $context, YES)")
        #expect(counting.expressionType == .fetchRequest)
        let variables = NSMutableDictionary(dictionary: ["request": request, "context": context])
        #expect(counting.expressionValue(with: nil, context: variables) as? Int == 2)
        // Not a request and a context: nil, as nothing can be fetched.
        #expect(counting.expressionValue(with: nil, context: NSMutableDictionary(dictionary: ["request": 1, "context": context])) == nil)
    }

    @Test func aFetchExpressionPrintsAsItParsesAndKeepsItsParts() throws {
        let format = "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Person\", \"age > 3\"), $manager.sourceContext, NO)"
        let parsed = try NSExpression(validatingFormat: format)
        #expect(parsed.description == format)
        #expect(try NSExpression(validatingFormat: parsed.description).description == format)
        let built = NSFetchRequestExpression.expression(forFetch: NSExpression(forVariable: "r"), context: NSExpression(forVariable: "c"),
                                                        countOnly: true)
        let fetch = try #require(built as? NSFetchRequestExpression)
        #expect(fetch.requestExpression.variable == "r")
        #expect(fetch.contextExpression.variable == "c")
        #expect(fetch.isCountOnlyRequest)
        #expect(built.description == "FETCH($r, $c, YES)")
    }

    /// The SQLite store does not run a fetch inside its own: a predicate with FETCH is refused
    /// with 134091, naming it.
    @Test func theSQLiteStoreRefusesAFetchInsideAPredicate() throws {
        let directory = TemporaryDirectory()
        let context = try Self.notes(in: directory)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.predicate = NSPredicate(format: "SELF IN FETCH($r, $c, NO)")
            .withSubstitutionVariables(["r": NSFetchRequest<NSManagedObject>(entityName: "Note"), "c": context])
        let error = try #require(throws: CocoaError.self) { try context.fetch(request) }
        #expect(error.code.rawValue == 134091)
        #expect(error.localizedDescription.contains("a FETCH is only evaluated in memory"))
    }
}
