import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSFetchedResultsController` (issue 15, item 4): its results, sections and index titles, and
/// the rounds of changes its delegate hears — checked by replaying each round on a copy of the
/// results the way a table view's batch update does, and comparing with a fresh fetch.
@Suite struct FetchedResultsControllerTests {
    // MARK: Results

    @Test(arguments: StoreKind.allCases)
    func performFetchFillsTheResultsInOrder(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for (name, age) in [("Cy", 40), ("Ann", 30), ("Bo", 30)] { stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"])
        #expect(controller.fetchedObjects == nil)
        #expect(controller.sections == nil)
        try controller.performFetch()
        #expect(names(controller.fetchedObjects ?? []) == ["Ann", "Bo", "Cy"])
        #expect(controller.sections?.count == 1)
        #expect(controller.sections?[0].name == "")
        #expect(controller.sections?[0].numberOfObjects == 3)
        let bo = controller.object(at: IndexPath(row: 1, section: 0))
        #expect(bo.value(forKey: "name") as? String == "Bo")
        #expect(controller.indexPath(forObject: bo) == IndexPath(row: 1, section: 0))
        let stranger = stack.insert("Person", ["name": "Zed"])
        #expect(controller.indexPath(forObject: stranger) == nil)
    }

    @Test func anEmptyResultStillHasItsOneSection() throws {
        let stack = try TestStack(.sqlite)
        let controller = Self.controller(stack, sortedBy: ["name"])
        try controller.performFetch()
        #expect(controller.fetchedObjects?.isEmpty == true)
        #expect(controller.sections?.count == 1)
        #expect(controller.sections?[0].numberOfObjects == 0)
    }

    @Test func sectionsGroupByTheSectionKeyPath() throws {
        let stack = try TestStack(.sqlite)
        for (name, age) in [("Cy", 40), ("Ann", 30), ("Bo", 30), ("Di", 50)] { stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"], sectionNameKeyPath: "age")
        try controller.performFetch()
        let sections = try #require(controller.sections)
        #expect(sections.map(\.name) == ["30", "40", "50"])
        #expect(sections.map(\.numberOfObjects) == [2, 1, 1])
        #expect(names(sections[0].objects as? [NSManagedObject] ?? []) == ["Ann", "Bo"])
        #expect(controller.object(at: IndexPath(row: 0, section: 2)).value(forKey: "name") as? String == "Di")
        #expect(controller.indexPath(forObject: controller.fetchedObjects![1]) == IndexPath(row: 1, section: 0))
    }

    @Test func aSortThatDoesNotGroupBySectionIsRefused() throws {
        let stack = try TestStack(.sqlite)
        for (name, age) in [("Ann", 30), ("Bo", 40), ("Cy", 30)] { stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["name"], sectionNameKeyPath: "age")
        let error = #expect(throws: (any Error).self) { try controller.performFetch() }
        #expect(error?.code == NSCoreDataError)
        #expect(error?.message.contains("out of order section name '30'") == true)
        #expect(controller.fetchedObjects == nil)
    }

    @Test func aRequestWithoutSortDescriptorsIsRefused() throws {
        let stack = try TestStack(.sqlite)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let error = #expect(throws: (any Error).self) { try controller.performFetch() }
        #expect(error?.message.contains("requires a fetch request with sort descriptors") == true)
    }

    @Test func sectionIndexTitlesAreCapitalizedFirstLettersOrTheDelegates() throws {
        let stack = try TestStack(.sqlite)
        for name in ["apple", "avocado", "banana", "cherry"] { stack.insert("Person", ["name": name, "email": "\(name)@x"]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["name"], sectionNameKeyPath: "name")
        try controller.performFetch()
        #expect(controller.sections?.map(\.indexTitle) == ["A", "A", "B", "C"])
        #expect(controller.sectionIndexTitles == ["A", "B", "C"])
        #expect(controller.sectionIndexTitle(forSectionName: "durian") == "D")
        #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 2)

        let delegate = Recorder(controller)
        delegate.titles = { "#" + $0 }
        #expect(controller.sectionIndexTitles == ["#apple", "#avocado", "#banana", "#cherry"])
    }

    @Test func aSubclassTitlesSectionsItsOwnWay() throws {
        final class Initials: NSFetchedResultsController<NSManagedObject> {
            override func sectionIndexTitle(forSectionName sectionName: String) -> String? { String(sectionName.suffix(1)) }
        }
        let stack = try TestStack(.sqlite)
        for name in ["ab", "cd"] { stack.insert("Person", ["name": name]) }
        try stack.context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = Initials(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "name", cacheName: "People")
        try controller.performFetch()
        #expect(controller.sectionIndexTitles == ["b", "d"])
        // With a delegate that keeps the default, the subclass still decides.
        let delegate = Recorder(controller)
        #expect(controller.sectionIndexTitles == ["b", "d"])
        withExtendedLifetime(delegate) {}
        #expect(controller.cacheName == "People")
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: "People")
    }

    // MARK: Rounds of changes

    @Test(arguments: StoreKind.allCases)
    func eachKindOfChangeReachesTheDelegateWithItsIndexPaths(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let people = ["Ann", "Bo", "Cy", "Di"].map { stack.insert("Person", ["name": $0]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["name"])
        try controller.performFetch()
        let recorder = Recorder(controller)

        stack.insert("Person", ["name": "Ben"])
        stack.context.processPendingChanges()
        #expect(recorder.rounds == 1)
        #expect(recorder.lastRound == ["insert - → 0.1 Ben"])

        stack.context.delete(people[2])
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["delete 0.3 → - Cy"])

        people[0].setValue("Zoe", forKey: "name")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["move 0.0 → 0.3 Zoe"])

        people[1].setValue(41, forKey: "age")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["update 0.1 → 0.1 Bo"])
        #expect(recorder.willChange == recorder.didChange && recorder.didChange == 4)
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    @Test func objectsStartingAndStoppingToMatchArriveAndLeave() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann", "age": 20])
        let bo = stack.insert("Person", ["name": "Bo", "age": 40])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["name"], predicate: NSPredicate(format: "age >= 30"))
        try controller.performFetch()
        let recorder = Recorder(controller)
        #expect(names(controller.fetchedObjects!) == ["Bo"])

        ann.setValue(35, forKey: "age")
        bo.setValue(25, forKey: "age")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["delete 0.0 → - Bo", "insert - → 0.0 Ann"])
        #expect(names(controller.fetchedObjects!) == ["Ann"])
        // An object of another entity, and one that does not match, change nothing.
        stack.insert("Pet", ["name": "Rex"])
        stack.insert("Person", ["name": "Cy", "age": 5])
        stack.context.processPendingChanges()
        #expect(recorder.rounds == 1)
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    @Test func sectionsAppearAndGoWithTheirObjects() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann", "age": 30])
        let bo = stack.insert("Person", ["name": "Bo", "age": 40])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"], sectionNameKeyPath: "age")
        try controller.performFetch()
        let recorder = Recorder(controller)

        // Bo moves from his own section to Ann's: his section goes.
        bo.setValue(30, forKey: "age")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["section delete 1 40", "move 1.0 → 0.1 Bo"])
        #expect(controller.sections?.map(\.name) == ["30"])

        // Ann opens a new section before the others.
        ann.setValue(10, forKey: "age")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["section insert 0 10", "move 0.0 → 0.0 Ann"])
        #expect(controller.sections?.map(\.name) == ["10", "30"])

        // A new object in a new section at the end, and the deletion of a section's only object.
        stack.context.delete(ann)
        stack.insert("Person", ["name": "Cy", "age": 90])
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["section delete 0 10", "section insert 1 90", "delete 0.0 → - Ann", "insert - → 1.0 Cy"])
        #expect(controller.sections?.map(\.name) == ["30", "90"])
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    @Test func anObjectEmptyingAndRefillingItsSectionKeepsTheSection() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann", "age": 30])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"], sectionNameKeyPath: "age")
        try controller.performFetch()
        let recorder = Recorder(controller)
        ann.setValue("Anna", forKey: "name")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["update 0.0 → 0.0 Anna"])
    }

    @Test func swappingTwoObjectsIsReportedAsMoves() throws {
        let stack = try TestStack(.sqlite)
        let people = ["Ann", "Bo", "Cy"].map { stack.insert("Person", ["name": $0]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["name"])
        try controller.performFetch()
        let recorder = Recorder(controller)
        people[0].setValue("Bz", forKey: "name")
        people[1].setValue("Ab", forKey: "name")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["move 0.0 → 0.1 Bz", "move 0.1 → 0.0 Ab"])
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    @Test func savesAndUndoReachTheController() throws {
        let stack = try TestStack(.sqlite)
        let manager = UndoManager()
        manager.groupsByEvent = false
        stack.context.undoManager = manager
        let controller = Self.controller(stack, sortedBy: ["name"])
        try controller.performFetch()
        let recorder = Recorder(controller)
        manager.beginUndoGrouping()
        stack.insert("Person", ["name": "Ann"])
        stack.context.processPendingChanges()
        manager.endUndoGrouping()
        try stack.context.save()
        #expect(recorder.lastRound == ["insert - → 0.0 Ann"])
        stack.context.undo()
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["delete 0.0 → - Ann"])
        #expect(controller.fetchedObjects?.isEmpty == true)
        stack.context.redo()
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["insert - → 0.0 Ann"])
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    @Test func aBackgroundContextsSaveIsMergedIntoTheController() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann", "age": 30])
        stack.insert("Person", ["name": "Cy", "age": 30])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"], sectionNameKeyPath: "age")
        try controller.performFetch()
        let recorder = Recorder(controller)

        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = stack.coordinator
        let saves = NotificationRecorder(.NSManagedObjectContextDidSave, object: background)
        try background.performAndWait {
            let bo = NSEntityDescription.insertNewObject(forEntityName: "Person", into: background)
            bo.setValue("Bo", forKey: "name")
            bo.setValue(30, forKey: "age")
            let people = try background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            let cy = people.first { $0.value(forKey: "name") as? String == "Cy" }!
            cy.setValue(50, forKey: "age")
            let annThere = people.first { $0.value(forKey: "name") as? String == "Ann" }!
            background.delete(annThere)
            try background.save()
        }
        stack.context.mergeChanges(fromContextDidSave: try #require(saves.notifications.first))
        #expect(recorder.rounds == 1)
        #expect(Set(recorder.lastRound) == ["section insert 1 50", "delete 0.0 → - Ann", "insert - → 0.0 Bo", "move 0.1 → 1.0 Cy"])
        #expect(ann.managedObjectContext == nil)
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    @Test func automaticMergesOfASiblingReachTheController() throws {
        let stack = try TestStack(.sqlite)
        // A context on its own queue: the merge is queued there, and waiting there lets it run.
        let viewing = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        viewing.persistentStoreCoordinator = stack.coordinator
        viewing.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: viewing,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let recorder = try viewing.performAndWait {
            try controller.performFetch()
            return Recorder(controller)
        }
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = stack.coordinator
        try background.performAndWait {
            for name in ["Bo", "Ann"] {
                NSEntityDescription.insertNewObject(forEntityName: "Person", into: background).setValue(name, forKey: "name")
            }
            try background.save()
        }
        try viewing.performAndWait {
            #expect(names(controller.fetchedObjects!) == ["Ann", "Bo"])
            #expect(Set(recorder.lastRound) == ["insert - → 0.0 Ann", "insert - → 0.1 Bo"])
            try recorder.checkReplayMatches(controller, fetchedFrom: stack)
        }
    }

    @Test func aMergeTellsObserversWhatItInsertedRefreshedAndDeleted() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann"])
        let bo = stack.insert("Person", ["name": "Bo"])
        try stack.context.save()
        let other = stack.newContext()
        let there = try stack.fetch("Person", sortedBy: "name", in: other)
        there[0].setValue("Anna", forKey: "name")
        other.delete(there[1])
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: other).setValue("Cy", forKey: "name")
        let saves = NotificationRecorder(.NSManagedObjectContextDidSave, object: other)
        try other.save()

        let changes = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, object: stack.context)
        stack.context.mergeChanges(fromContextDidSave: try #require(saves.notifications.first))
        #expect(changes.notifications.count == 1)
        #expect(changes.objects(NSRefreshedObjectsKey, at: 0) == [ann])
        #expect(changes.objects(NSDeletedObjectsKey, at: 0) == [bo])
        let inserted = changes.objects(NSInsertedObjectsKey, at: 0)
        #expect(names(inserted) == ["Cy"])
        #expect(inserted.first?.managedObjectContext === stack.context)
        withExtendedLifetime(other) {}
    }

    /// §10.1: a refresh is announced under NSRefreshedObjectsKey.
    @Test func aRefreshIsAnnouncedAsRefreshed() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann"])
        try stack.context.save()
        let changes = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, object: stack.context)
        stack.context.refresh(ann, mergeChanges: true)
        stack.context.processPendingChanges()
        #expect(changes.objects(NSRefreshedObjectsKey, at: 0) == [ann])
    }

    @Test func aDifferenceDelegateHearsOnlyTheDifference() throws {
        final class DifferenceDelegate: NSFetchedResultsControllerDelegate {
            var differences: [CollectionDifference<NSManagedObjectID>] = []
            var otherCalls = 0
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                            didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
                differences.append(diff)
            }
            func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
        }
        let stack = try TestStack(.sqlite)
        let people = ["Ann", "Bo", "Cy"].map { stack.insert("Person", ["name": $0]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["name"])
        try controller.performFetch()
        let before = controller.fetchedObjects!.map(\.objectID)
        let delegate = DifferenceDelegate()
        controller.delegate = delegate
        people[0].setValue("Dan", forKey: "name")
        stack.context.delete(people[1])
        stack.insert("Person", ["name": "Al"])
        stack.context.processPendingChanges()
        #expect(delegate.otherCalls == 0)
        let difference = try #require(delegate.differences.first)
        #expect(before.applying(difference) == controller.fetchedObjects!.map(\.objectID))
        #expect(difference.removals.count == 2 && difference.insertions.count == 2)
    }

    @Test func aControllerWithoutADelegateKeepsItsResults() throws {
        let stack = try TestStack(.sqlite)
        stack.insert("Person", ["name": "Ann"])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["name"])
        try controller.performFetch()
        stack.insert("Person", ["name": "Bo"])
        stack.context.processPendingChanges()
        #expect(names(controller.fetchedObjects!) == ["Ann"])
        try controller.performFetch()
        #expect(names(controller.fetchedObjects!) == ["Ann", "Bo"])
    }

    @Test func aDelegateThatChangesTheContextHearsOfItInTheNextRound() throws {
        final class Renamer: NSFetchedResultsControllerDelegate {
            var rounds: [[NSFetchedResultsChangeType]] = []
            var current: [NSFetchedResultsChangeType] = []
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                            at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
                current.append(type)
                let object = anObject as! NSManagedObject
                if type == .insert {
                    object.setValue("renamed", forKey: "nickname")
                    object.setValue(99, forKey: "age")
                    object.managedObjectContext?.processPendingChanges()
                }
            }
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                rounds.append(current)
                current = []
            }
        }
        let stack = try TestStack(.sqlite)
        let controller = Self.controller(stack, sortedBy: ["name"])
        try controller.performFetch()
        let renamer = Renamer()
        controller.delegate = renamer
        stack.insert("Person", ["name": "Ann"])
        stack.context.processPendingChanges()
        #expect(renamer.rounds == [[.insert], [.update]])
    }

    /// Random inserts, deletions and changes of the sort key, the section key and the predicate's
    /// key: after every round, replaying the delegate's changes on the previous results gives the
    /// controller's results, and they are what a fresh fetch returns.
    @Test(arguments: [(StoreKind.sqlite, "age"), (.inMemory, "age"), (.sqlite, nil)] as [(StoreKind, String?)])
    func randomRoundsReplayToWhatAFetchReturns(kind: StoreKind, sectionKey: String?) throws {
        let stack = try TestStack(kind)
        var generator = SeededGenerator(seed: 42)
        var people: [NSManagedObject] = []
        for number in 0..<60 {
            people.append(stack.insert("Person", ["name": "p\(Int.random(in: 0..<40, using: &generator))-\(number)",
                                                  "age": Int.random(in: 0..<6, using: &generator),
                                                  "active": Bool.random(using: &generator)]))
        }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"], sectionNameKeyPath: sectionKey,
                                         predicate: NSPredicate(format: "active == YES"))
        try controller.performFetch()
        let recorder = Recorder(controller)
        for round in 0..<60 {
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                switch Int.random(in: 0..<5, using: &generator) {
                case 0:
                    people.append(stack.insert("Person", ["name": "n\(round)-\(people.count)", "age": Int.random(in: 0..<8, using: &generator),
                                                          "active": Bool.random(using: &generator)]))
                case 1:
                    if let victim = people.randomElement(using: &generator), !victim.isDeleted {
                        stack.context.delete(victim)
                    }
                case 2:
                    people.randomElement(using: &generator)?.setValue(Int.random(in: 0..<8, using: &generator), forKey: "age")
                case 3:
                    people.randomElement(using: &generator)?.setValue("r\(Int.random(in: 0..<40, using: &generator))", forKey: "name")
                default:
                    people.randomElement(using: &generator)?.setValue(Bool.random(using: &generator), forKey: "active")
                }
            }
            people.removeAll { $0.isDeleted }
            stack.context.processPendingChanges()
            try recorder.checkReplayMatches(controller, fetchedFrom: stack)
            if round % 10 == 9 { try stack.context.save() }
        }
        #expect(recorder.rounds > 30)
    }

    /// A descending, case-insensitive sort, and a sort by a key path through a relationship,
    /// are kept as the store keeps them.
    @Test(arguments: StoreKind.allCases)
    func otherSortsAreKeptAsTheStoreSortsThem(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        var generator = SeededGenerator(seed: 7)
        let owners = ["ann", "Bo", "cy"].map { stack.insert("Person", ["name": $0]) }
        var pets = (0..<30).map { number in
            stack.insert("Pet", ["name": "\(["a", "B", "c", "D"].randomElement(using: &generator)!)\(number)",
                                 "owner": owners.randomElement(using: &generator)!])
        }
        try stack.context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Pet")
        request.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: true, selectorName: "caseInsensitiveCompare:"),
                                   NSSortDescriptor(key: "name", ascending: false, selectorName: "caseInsensitiveCompare:")]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context,
                                                    sectionNameKeyPath: "owner.name", cacheName: nil)
        try controller.performFetch()
        #expect(controller.sections?.map(\.name) == ["ann", "Bo", "cy"])
        let recorder = Recorder(controller)
        for round in 0..<40 {
            let pet = pets.randomElement(using: &generator)!
            switch round % 3 {
            case 0: pet.setValue("\(["A", "b", "C", "d"].randomElement(using: &generator)!)\(100 + round)", forKey: "name")
            case 1: pet.setValue(owners.randomElement(using: &generator)!, forKey: "owner")
            default:
                stack.context.delete(pet)
                pets.removeAll { $0 === pet }
                pets.append(stack.insert("Pet", ["name": "e\(200 + round)", "owner": owners.randomElement(using: &generator)!]))
            }
            stack.context.processPendingChanges()
            try recorder.checkReplayMatches(controller, fetchedFrom: stack)
        }
    }

    /// A section emptied and another made in one round: the new one goes where it sorts, not
    /// after the emptied one, which comes back as itself when refilled.
    @Test func aSectionEmptiedAndRefilledInOneRoundKeepsTheOrder() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann", "age": 30])
        stack.insert("Person", ["name": "Di", "age": 50])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"], sectionNameKeyPath: "age")
        try controller.performFetch()
        let recorder = Recorder(controller)
        ann.setValue(20, forKey: "age")
        stack.insert("Person", ["name": "Bo", "age": 30])
        stack.context.processPendingChanges()
        #expect(controller.sections?.map(\.name) == ["20", "30", "50"])
        #expect(recorder.lastRound.contains("section insert 0 20"))
        #expect(!recorder.lastRound.contains { $0.hasPrefix("section delete") })
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    /// A section emptied and refilled where it no longer sorts in its former place is deleted
    /// and inserted again, its objects leaving and arriving, so that a table view's rows add up.
    @Test func aRefilledSectionThatMovesIsDeletedAndInserted() throws {
        let stack = try TestStack(.sqlite)
        let apple = stack.insert("Person", ["name": "apple", "age": 1, "height": 1.0])
        let avocado = stack.insert("Person", ["name": "avocado", "age": 1, "height": 1.0])
        stack.insert("Person", ["name": "bean", "age": 2, "height": 2.0])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"], sectionNameKeyPath: "height")
        try controller.performFetch()
        let recorder = Recorder(controller)
        apple.setValue(3, forKey: "age")
        apple.setValue("zucchini", forKey: "name")
        avocado.setValue(3, forKey: "age")
        stack.context.processPendingChanges()
        #expect(controller.sections?.map(\.name) == ["2.0", "1.0"])
        #expect(recorder.lastRound.contains("section delete 0 1.0") && recorder.lastRound.contains("section insert 1 1.0"))
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    /// An object whose sort values do not change keeps its place among objects that sort the
    /// same: an update, not a move behind them.
    @Test func anObjectChangedWithoutItsSortValuesKeepsItsPlaceAmongEquals() throws {
        let stack = try TestStack(.sqlite)
        let people = ["Ann", "Bo", "Cy"].map { stack.insert("Person", ["name": $0, "age": 30]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age"])
        try controller.performFetch()
        let order = controller.fetchedObjects!
        let recorder = Recorder(controller)
        order[0].setValue("Anna", forKey: "email")
        stack.context.processPendingChanges()
        #expect(recorder.lastRound == ["update 0.0 → 0.0 \(order[0].value(forKey: "name") as! String)"])
        #expect(controller.fetchedObjects! == order)
        withExtendedLifetime(people) {}
    }

    /// Changes made while saving (in willSave) and discarded by rollback reach the controller.
    @Test func changesInWillSaveAndRollbackReachTheController() throws {
        final class Stamped: NSManagedObject {
            override func willSave() {
                if isInserted, value(forKey: "age") as? Int == 0 { setPrimitiveValue(99, forKey: "age"); setValue(99, forKey: "age") }
            }
        }
        let model = TestModel.make()
        model.entitiesByName["Person"]!.managedObjectClass = Stamped.self
        let stack = try TestStack(.sqlite, model: model)
        stack.insert("Person", ["name": "Ann", "age": 50])
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"])
        try controller.performFetch()
        let recorder = Recorder(controller)
        let bo = stack.insert("Person", ["name": "Bo"])
        stack.context.processPendingChanges()
        #expect(controller.indexPath(forObject: bo) == IndexPath(row: 0, section: 0))
        try stack.context.save()  // willSave moves Bo to age 99: after Ann
        #expect(controller.indexPath(forObject: bo) == IndexPath(row: 1, section: 0))
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)

        let cy = stack.insert("Person", ["name": "Cy", "age": 1])
        stack.context.processPendingChanges()
        #expect(controller.fetchedObjects?.count == 3)
        stack.context.rollback()
        #expect(controller.fetchedObjects?.contains(cy) == false)
        #expect(recorder.lastRound == ["delete 0.0 → - Cy"])
        try recorder.checkReplayMatches(controller, fetchedFrom: stack)
    }

    /// An undone deletion, then a change: the change is saved (the object is updated again).
    @Test func aChangeAfterAnUndoneDeletionIsSaved() throws {
        let stack = try TestStack(.sqlite)
        let manager = UndoManager()
        manager.groupsByEvent = false
        stack.context.undoManager = manager
        let ann = stack.insert("Person", ["name": "Ann"])
        try stack.context.save()
        manager.beginUndoGrouping()
        stack.context.delete(ann)
        stack.context.processPendingChanges()
        manager.endUndoGrouping()
        manager.undo()
        ann.setValue("Anna", forKey: "name")
        #expect(stack.context.hasChanges)
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Anna"])
    }

    /// Sections read before a second performFetch read as empty, rather than another section's objects.
    @Test func sectionsFromAnEarlierFetchReadAsEmpty() throws {
        let stack = try TestStack(.sqlite)
        for (name, age) in [("Ann", 1), ("Bo", 2), ("Cy", 3)] { stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age"], sectionNameKeyPath: "age")
        try controller.performFetch()
        let old = try #require(controller.sections)
        controller.fetchRequest.predicate = NSPredicate(format: "age < 2")
        try controller.performFetch()
        #expect(controller.sections?.count == 1)
        #expect((old[2].objects ?? []).isEmpty)
    }

    /// More objects than one chunk holds: chunks split and empty as objects come and go.
    @Test func manyObjectsAcrossChunksStayInOrder() throws {
        let stack = try TestStack(.inMemory)
        var generator = SeededGenerator(seed: 3)
        for number in 0..<2_500 { stack.insert("Person", ["name": "p\(number)", "age": Int.random(in: 0..<150, using: &generator)]) }
        try stack.context.save()
        let controller = Self.controller(stack, sortedBy: ["age", "name"])
        try controller.performFetch()
        let recorder = Recorder(controller)
        var people = controller.fetchedObjects!
        for round in 0..<6 {
            // A crowd arrives at one end, others leave from the middle, some move.
            for number in 0..<700 { people.append(stack.insert("Person", ["name": "n\(round)-\(number)", "age": 0])) }
            for person in people[1_000..<1_400] { stack.context.delete(person) }
            people.removeSubrange(1_000..<1_400)
            for person in people.prefix(50) { person.setValue(Int.random(in: 0..<150, using: &generator), forKey: "age") }
            stack.context.processPendingChanges()
            try recorder.checkReplayMatches(controller, fetchedFrom: stack)
        }
    }

    // MARK: Helpers

    private static func controller(_ stack: TestStack, sortedBy keys: [String], sectionNameKeyPath: String? = nil,
                                   predicate: NSPredicate? = nil) -> NSFetchedResultsController<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = keys.map { NSSortDescriptor(key: $0, ascending: true) }
        request.predicate = predicate
        return NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context,
                                          sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
    }
}

private func names(_ objects: [NSManagedObject]) -> [String] {
    objects.map { $0.value(forKey: "name") as? String ?? "?" }
}

private func names(_ objects: Set<NSManagedObject>) -> [String] {
    names(Array(objects)).sorted()
}

/// A delegate that writes each round down, and keeps a copy of the results that it updates
/// from the rounds the way a table view's batch update does.
private final class Recorder: NSFetchedResultsControllerDelegate {
    private(set) var rounds = 0
    private(set) var willChange = 0
    private(set) var didChange = 0
    private(set) var lastRound: [String] = []
    var titles: ((String) -> String?)?
    private var current: [String] = []
    private var sectionChanges: [(index: Int, type: NSFetchedResultsChangeType)] = []
    private var objectChanges: [(object: NSManagedObject, type: NSFetchedResultsChangeType, old: IndexPath?, new: IndexPath?)] = []
    /// The results as the delegate knows them: sections of objects.
    private(set) var table: [[NSManagedObject]]
    private var problems: [String] = []

    init(_ controller: NSFetchedResultsController<NSManagedObject>) {
        table = (controller.sections ?? []).map { ($0.objects as? [NSManagedObject]) ?? [] }
        controller.delegate = self
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        willChange += 1
        current = []
        sectionChanges = []
        objectChanges = []
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        current.append("section \(type.word) \(sectionIndex) \(sectionInfo.name)")
        sectionChanges.append((sectionIndex, type))
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let object = anObject as! NSManagedObject
        current.append("\(type.word) \(indexPath.map { "\($0.section).\($0.row)" } ?? "-") → \(newIndexPath.map { "\($0.section).\($0.row)" } ?? "-") \(object.value(forKey: "name") as? String ?? "?")")
        objectChanges.append((object, type, indexPath, newIndexPath))
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        didChange += 1
        rounds += 1
        lastRound = current
        replay()
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    sectionIndexTitleForSectionName sectionName: String) -> String? {
        titles?(sectionName) ?? controller.sectionIndexTitle(forSectionName: sectionName)
    }

    /// Applies the round as a table view does: deletions and the sources of moves at old index
    /// paths, insertions and the destinations of moves at new ones; updates must name the object
    /// at their old index path.
    private func replay() {
        let old = table
        var removed: Set<IndexPath> = []
        for change in objectChanges {
            switch change.type {
            case .delete, .move:
                guard let path = change.old, path.section < old.count, path.row < old[path.section].count,
                      old[path.section][path.row] === change.object else {
                    problems.append("\(change.type.word) at \(String(describing: change.old)) does not name its object")
                    continue
                }
                removed.insert(path)
            case .update:
                guard let path = change.old, path.section < old.count, path.row < old[path.section].count,
                      old[path.section][path.row] === change.object else {
                    problems.append("update at \(String(describing: change.old)) does not name its object")
                    continue
                }
            case .insert:
                break
            }
        }
        let deletedSections = Set(sectionChanges.filter { $0.type == .delete }.map(\.index))
        var sections: [[NSManagedObject]] = []
        for (index, rows) in old.enumerated() where !deletedSections.contains(index) {
            sections.append(rows.enumerated().filter { !removed.contains(IndexPath(row: $0.offset, section: index)) }.map(\.element))
        }
        for index in sectionChanges.filter({ $0.type == .insert }).map(\.index).sorted() {
            guard index <= sections.count else {
                problems.append("section insert at \(index) beyond \(sections.count) sections")
                continue
            }
            sections.insert([], at: index)
        }
        let arrivals = objectChanges.filter { $0.type == .insert || $0.type == .move }
            .sorted { ($0.new!.section, $0.new!.row) < ($1.new!.section, $1.new!.row) }
        for change in arrivals {
            let path = change.new!
            guard path.section < sections.count, path.row <= sections[path.section].count else {
                problems.append("\(change.type.word) to \(path) is outside the table")
                continue
            }
            sections[path.section].insert(change.object, at: path.row)
        }
        for change in objectChanges where change.type == .update {
            if let path = change.new, path.section < sections.count, path.row < sections[path.section].count,
               sections[path.section][path.row] !== change.object {
                problems.append("update's new index path \(path) does not name its object")
            }
        }
        table = sections
    }

    /// The replayed table is the controller's results, which are a fresh fetch's.
    func checkReplayMatches(_ controller: NSFetchedResultsController<NSManagedObject>, fetchedFrom stack: TestStack,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
        let sections = (controller.sections ?? []).map { ($0.objects as? [NSManagedObject]) ?? [] }
        #expect(table.map(names) == sections.map(names), sourceLocation: sourceLocation)
        let fresh = try controller.managedObjectContext.fetch(controller.fetchRequest)
        #expect(names(fresh) == names(controller.fetchedObjects ?? []), sourceLocation: sourceLocation)
        if let keyPath = controller.sectionNameKeyPath {
            let freshSections = fresh.reduce(into: [String]()) { names, object in
                let name = "\(object.value(forKeyPath: keyPath) ?? "")"
                if names.last != name { names.append(name) }
            }
            #expect(controller.sections?.map(\.name) == freshSections, sourceLocation: sourceLocation)
        }
        for (index, object) in (controller.fetchedObjects ?? []).enumerated() {
            guard let path = controller.indexPath(forObject: object) else {
                Issue.record("no index path for object \(index)", sourceLocation: sourceLocation)
                return
            }
            #expect(controller.object(at: path) === object, sourceLocation: sourceLocation)
        }
    }
}

extension NSFetchedResultsChangeType {
    fileprivate var word: String {
        switch self {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }
}

/// A deterministic random source, so that a failing sequence of changes can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        // SplitMix64.
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
