import Foundation
import Testing
import OpenCoreData

/// `UndoManager` on its own (issue 15 item 1), with Foundation's semantics: groups, nesting,
/// grouping by event, the undo and redo stacks, action names, registration switched off, and
/// the notifications.
@Suite struct UndoManagerTests {
    /// A document whose title setter registers its own undo, the way Foundation's examples do,
    /// so that undoing registers the redo.
    final class Document: @unchecked Sendable {
        // @unchecked Sendable: a test uses a document from one thread at a time.
        let undoManager: UndoManager
        private(set) var title: String
        var observed: [String] = []

        init(title: String, undoManager: UndoManager) {
            self.title = title
            self.undoManager = undoManager
        }

        func setTitle(_ newTitle: String) {
            let old = title
            undoManager.registerUndo(withTarget: self) { document in
                document.observed.append("undoing=\(document.undoManager.isUndoing) redoing=\(document.undoManager.isRedoing)")
                document.setTitle(old)
            }
            title = newTitle
        }
    }

    /// An undo manager that groups only by hand.
    private func manualManager() -> UndoManager {
        let manager = UndoManager()
        manager.groupsByEvent = false
        return manager
    }

    private func edit(_ document: Document, to title: String, named name: String? = nil) {
        document.undoManager.beginUndoGrouping()
        document.setTitle(title)
        if let name { document.undoManager.setActionName(name) }
        document.undoManager.endUndoGrouping()
    }

    @Test func undoRevertsAGroupAndRedoAppliesItAgain() {
        let document = Document(title: "A", undoManager: manualManager())
        edit(document, to: "B")
        edit(document, to: "C")
        #expect(document.undoManager.canUndo && !document.undoManager.canRedo)

        document.undoManager.undo()
        #expect(document.title == "B")
        document.undoManager.undo()
        #expect(document.title == "A")
        #expect(!document.undoManager.canUndo && document.undoManager.canRedo)
        document.undoManager.redo()
        #expect(document.title == "B")
        document.undoManager.redo()
        #expect(document.title == "C")
        #expect(!document.undoManager.canRedo)
        #expect(document.observed == ["undoing=true redoing=false", "undoing=true redoing=false",
                                      "undoing=false redoing=true", "undoing=false redoing=true"])
        #expect(!document.undoManager.isUndoing && !document.undoManager.isRedoing)
    }

    @Test func aGroupIsUndoneWholeLastOperationFirst() {
        let manager = manualManager()
        let document = Document(title: "A", undoManager: manager)
        manager.beginUndoGrouping()
        document.setTitle("B")
        document.setTitle("C")
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.title == "A")
        manager.redo()
        #expect(document.title == "C")
    }

    @Test func nestedGroupsJoinTheGroupAroundThem() {
        let manager = manualManager()
        let document = Document(title: "A", undoManager: manager)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 1)
        document.setTitle("B")
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        document.setTitle("C")
        manager.endUndoGrouping()
        // Inside the open group, the nested group alone can be undone; its redo goes on the
        // redo stack, not into the open group.
        manager.undoNestedGroup()
        #expect(document.title == "B")
        #expect(manager.groupingLevel == 2 - 1)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
        #expect(manager.canRedo)
        manager.undo()
        #expect(document.title == "A")
        #expect(document.observed == ["undoing=true redoing=false", "undoing=true redoing=false"])
    }

    @Test func undoClosesAnOpenTopLevelGroupEvenWithoutGroupingByEvent() {
        let manager = manualManager()
        let document = Document(title: "A", undoManager: manager)
        manager.beginUndoGrouping()
        document.setTitle("B")
        manager.setActionName("Rename")
        #expect(manager.canUndo && manager.undoActionName == "Rename")
        manager.undo()
        #expect(document.title == "A")
        #expect(manager.groupingLevel == 0)
        #expect(manager.redoActionName == "Rename")
    }

    @Test func anActionNameSetInANestedGroupNamesTheTopLevelGroup() {
        let manager = manualManager()
        let document = Document(title: "A", undoManager: manager)
        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        document.setTitle("B")
        manager.setActionName("Rename")
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        #expect(manager.undoActionName == "Rename")
    }

    @Test func severalThreadsMayRegisterAndUndo() async {
        let manager = manualManager()
        let counter = Counter(undoManager: manager)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<100 { counter.increment() }
                }
            }
        }
        #expect(counter.value == 400)
        while manager.canUndo { manager.undo() }
        #expect(counter.value == 0)
    }

    /// A counter whose every increment is its own undo group, from any thread.
    final class Counter: @unchecked Sendable {
        // @unchecked Sendable: `count` is guarded by `lock`; the undo manager locks itself.
        private let lock = NSLock()
        private var count = 0
        let undoManager: UndoManager
        init(undoManager: UndoManager) { self.undoManager = undoManager }
        var value: Int { lock.withLock { count } }

        func increment() {
            undoManager.beginUndoGrouping()
            lock.withLock { count += 1 }
            undoManager.registerUndo(withTarget: self) { counter in counter.lock.withLock { counter.count -= 1 } }
            undoManager.endUndoGrouping()
        }
    }

    @Test func emptyGroupsLeaveNothingToUndo() {
        let manager = manualManager()
        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        #expect(!manager.canUndo)
    }

    @Test func registeringANewChangeClearsTheRedoStack() {
        let document = Document(title: "A", undoManager: manualManager())
        edit(document, to: "B")
        document.undoManager.undo()
        #expect(document.undoManager.canRedo)
        edit(document, to: "D")
        #expect(!document.undoManager.canRedo)
        document.undoManager.undo()
        #expect(document.title == "A")
    }

    // MARK: Grouping by event

    @Test func withoutARunLoopTheEventGroupStaysOpenUntilUndo() {
        let manager = UndoManager()
        #expect(manager.groupsByEvent)
        let document = Document(title: "A", undoManager: manager)
        document.setTitle("B")
        document.setTitle("C")
        #expect(manager.groupingLevel == 1)
        #expect(manager.canUndo)
        manager.undo()
        #expect(manager.groupingLevel == 0)
        #expect(document.title == "A")
        manager.redo()
        #expect(document.title == "C")
    }

    @Test func aTurningRunLoopClosesOneGroupPerEvent() {
        let manager = UndoManager()
        let document = Document(title: "A", undoManager: manager)
        let done = LockedBox(false)
        // Each change in its own run-loop event, on a thread of its own whose run loop turns.
        let thread = Thread {
            let runLoop = RunLoop.current
            runLoop.perform { document.setTitle("B") }
            runLoop.run(until: Date(timeIntervalSinceNow: 0.05))
            runLoop.perform { document.setTitle("C") }
            runLoop.run(until: Date(timeIntervalSinceNow: 0.05))
            done.mutate { $0 = true }
        }
        thread.start()
        let deadline = Date(timeIntervalSinceNow: 10)
        while !done.value && Date() < deadline { usleep(1_000) }
        #expect(done.value)
        #expect(manager.groupingLevel == 0)
        manager.undo()
        #expect(document.title == "B")
        manager.undo()
        #expect(document.title == "A")
    }

    @Test func withoutGroupsByEventRegisteringOutsideAGroupRecordsNothing() {
        let manager = manualManager()
        let document = Document(title: "A", undoManager: manager)
        document.setTitle("B")
        #expect(!manager.canUndo)
        #expect(manager.groupingLevel == 0)
    }

    // MARK: Limits and removal

    @Test func levelsOfUndoDropsTheOldestGroups() {
        let manager = manualManager()
        manager.levelsOfUndo = 2
        let document = Document(title: "A", undoManager: manager)
        for title in ["B", "C", "D"] { edit(document, to: title) }
        manager.undo()
        manager.undo()
        #expect(document.title == "B")
        #expect(!manager.canUndo)
    }

    @Test func disabledRegistrationRecordsNothingAndNests() {
        let manager = manualManager()
        let document = Document(title: "A", undoManager: manager)
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        edit(document, to: "B")
        manager.enableUndoRegistration()
        edit(document, to: "C")
        #expect(!manager.canUndo)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        edit(document, to: "D")
        manager.undo()
        #expect(document.title == "C")
    }

    @Test func removingActionsClearsTheStacksOrOneTargetsOperations() {
        let manager = manualManager()
        let first = Document(title: "A", undoManager: manager), second = Document(title: "X", undoManager: manager)
        edit(first, to: "B")
        edit(second, to: "Y")
        manager.beginUndoGrouping()
        first.setTitle("C")
        second.setTitle("Z")
        manager.endUndoGrouping()

        manager.removeAllActions(withTarget: second)
        manager.undo()
        #expect(first.title == "B" && second.title == "Z")
        manager.undo()
        #expect(first.title == "A")
        #expect(!manager.canUndo)  // the group that held only the second document's change is gone

        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(manager.isUndoRegistrationEnabled)
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func anOperationWhoseTargetIsGoneIsSkipped() {
        let manager = manualManager()
        let kept = Document(title: "A", undoManager: manager)
        manager.beginUndoGrouping()
        kept.setTitle("B")
        do {
            let gone = Document(title: "X", undoManager: manager)
            gone.setTitle("Y")
        }
        manager.endUndoGrouping()
        manager.undo()
        #expect(kept.title == "A")
    }

    @Test func misuseDoesNothing() {
        let manager = manualManager()
        manager.endUndoGrouping()
        manager.enableUndoRegistration()
        manager.undo()
        manager.redo()
        #expect(manager.groupingLevel == 0 && manager.isUndoRegistrationEnabled)
    }

    // MARK: Names and notifications

    @Test func actionNamesFollowTheirGroupToTheRedoStack() {
        let document = Document(title: "A", undoManager: manualManager())
        let manager = document.undoManager
        #expect(manager.undoActionName == "" && manager.undoMenuItemTitle == "Undo")
        edit(document, to: "B", named: "Rename")
        #expect(manager.undoActionName == "Rename")
        #expect(manager.undoMenuItemTitle == "Undo Rename")
        manager.undo()
        #expect(manager.redoActionName == "Rename")
        #expect(manager.redoMenuItemTitle == "Redo Rename")
        #expect(manager.undoMenuTitle(forUndoActionName: "Move") == "Undo Move")
        #expect(manager.redoMenuTitle(forUndoActionName: "") == "Redo")
        manager.redo()
        #expect(manager.undoActionName == "Rename")
    }

    @Test func notificationsComeInFoundationsOrder() {
        let manager = manualManager()
        let document = Document(title: "A", undoManager: manager)
        let names: [NSNotification.Name] = [.NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
                                            .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidOpenUndoGroup,
                                            .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup]
        let seen = LockedBox<[String]>([])
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in
                seen.mutate { $0.append(note.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "").replacingOccurrences(of: "Notification", with: "")) }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }

        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        document.setTitle("B")
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        #expect(seen.value == ["DidOpenUndoGroup", "Checkpoint", "DidOpenUndoGroup",
                               "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
                               "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
        seen.mutate { $0 = [] }
        manager.undo()
        #expect(seen.value == ["Checkpoint", "WillUndoChange", "DidOpenUndoGroup",
                               "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup", "DidUndoChange"])
        seen.mutate { $0 = [] }
        _ = manager.canRedo
        #expect(seen.value == ["Checkpoint"])
        seen.mutate { $0 = [] }
        manager.redo()
        #expect(seen.value.first == "Checkpoint" && seen.value.dropFirst().first == "WillRedoChange" && seen.value.last == "DidRedoChange")
    }
}

