import Foundation

/// Records changes as operations that revert them, in groups, so that `undo()` reverts the last
/// group and `redo()` applies it again: Foundation's `UndoManager`, which Foundation on Linux
/// does not have.
///
/// ```swift
/// let undoManager = UndoManager()
/// undoManager.registerUndo(withTarget: document) { $0.title = "Old title" }
/// undoManager.setActionName("Rename")
/// undoManager.undo()                       // document.title == "Old title"
/// undoManager.redoMenuItemTitle            // "Redo Rename"
/// ```
///
/// **Groups.** Operations registered between `beginUndoGrouping()` and `endUndoGrouping()` are
/// undone together; groups nest. With `groupsByEvent` (the default) registering outside any
/// group opens one, closed at the end of the current turn of the thread's run loop when one is
/// running (as in an app's main thread); where no run loop turns (a server, a command-line
/// tool, a test), the group stays open until `undo()` closes it or `endUndoGrouping()` is
/// called — set `groupsByEvent` to false and group by hand there.
///
/// **Undoing.** Operations registered while undoing go to the redo stack; while redoing, to the
/// undo stack; otherwise to the undo stack, clearing the redo stack.
///
/// Differences from Foundation on Apple's platforms: not bound to the main actor (contexts on
/// private queues use theirs), and safe to use from any thread (its state is locked; handlers
/// run under that lock); handlers take the target as a plain closure, not `@MainActor`; a
/// target is held weakly, and an operation whose target is gone is skipped (Foundation keeps an
/// unowned reference, which crashes); handlers and notification observers run with the
/// manager locked, so they must not wait for another thread that uses the same manager; misuse that Foundation answers with an exception
/// (`endUndoGrouping()` with no group open, `undo()` inside a nested group,
/// `enableUndoRegistration()` without a matching disable) does nothing. There is no
/// `prepare(withInvocationTarget:)` or selector-based registration (no Objective-C runtime).
open class UndoManager: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is touched only under `lock`.

    /// One operation: a target, held weakly, and what reverts the change on it.
    private struct Operation {
        weak var target: AnyObject?
        let perform: (AnyObject) -> Void
    }

    /// What a group holds, in the order registered.
    private enum Item {
        case operation(Operation)
        case group(Group)
    }

    /// A group of operations and the groups nested in it.
    private final class Group {
        /// Its place among every group opened, for `openGroupNumber`.
        let number: Int
        var items: [Item] = []

        init(number: Int) { self.number = number }
        var actionName = ""

        var isEmpty: Bool {
            items.allSatisfy { item in
                if case .group(let nested) = item { return nested.isEmpty }
                return false
            }
        }

        /// Leaves out the operations on `target` (at any depth), and groups left empty.
        func removeOperations(on target: AnyObject) {
            items.removeAll { item in
                switch item {
                case .operation(let operation):
                    return operation.target == nil || operation.target === target
                case .group(let nested):
                    nested.removeOperations(on: target)
                    return nested.isEmpty
                }
            }
        }

        /// Runs the operations, the last registered first.
        func perform() {
            for item in items.reversed() {
                switch item {
                case .operation(let operation):
                    if let target = operation.target { operation.perform(target) }
                case .group(let nested):
                    nested.perform()
                }
            }
        }
    }

    private let lock = NSRecursiveLock()
    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The groups open now, outermost first.
    private var openGroups: [Group] = []
    private var disableCount = 0
    private var undoing = false
    private var redoing = false
    /// Counts the groups opened for events, so that a scheduled close finds its own.
    private var eventGroupNumber = 0
    /// Counts the groups opened (those of undo and redo too).
    private var groupCount = 0
    private var storedGroupsByEvent = true
    private var storedLevelsOfUndo = 0
    private var storedRunLoopModes: [RunLoop.Mode] = [.default]

    public init() {}

    // MARK: Registering

    /// Registers `handler` as the operation that reverts a change of `target`: `undo()` calls
    /// it with `target`. Nothing is registered while registration is disabled.
    ///
    /// ```swift
    /// let old = shape.color
    /// undoManager.registerUndo(withTarget: shape) { $0.color = old }
    /// ```
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        lock.withLock {
            guard disableCount == 0 else { return }
            if openGroups.isEmpty {
                guard storedGroupsByEvent else { return }  // Foundation refuses this (no group open)
                openGroup()
                eventGroupNumber += 1
                scheduleEventGroupClose(number: eventGroupNumber)
            }
            if !undoing && !redoing { redoStack.removeAll() }
            openGroups[openGroups.count - 1].items.append(.operation(Operation(target: target) { handler($0 as! TargetType) }))
        }
    }

    /// Disables registration until a matching `enableUndoRegistration()`; calls nest.
    open func disableUndoRegistration() {
        lock.withLock { disableCount += 1 }
    }

    /// Ends one `disableUndoRegistration()`.
    open func enableUndoRegistration() {
        lock.withLock { if disableCount > 0 { disableCount -= 1 } }
    }

    /// Whether operations are recorded (no `disableUndoRegistration()` is in force).
    open var isUndoRegistrationEnabled: Bool {
        lock.withLock { disableCount == 0 }
    }

    // MARK: Groups

    /// Opens a group: the operations registered until the matching `endUndoGrouping()` are
    /// undone together. Inside another group, the new one is nested in it.
    open func beginUndoGrouping() {
        lock.withLock {
            if !openGroups.isEmpty { post(.NSUndoManagerCheckpoint) }
            openGroup()
        }
    }

    /// Closes the innermost open group. A top-level group with operations goes on the undo
    /// stack (the redo stack while undoing); a nested one stays in the group around it; empty
    /// groups are dropped.
    open func endUndoGrouping() {
        lock.withLock {
            guard !openGroups.isEmpty else { return }  // Foundation raises here
            closeGroup()
        }
    }

    /// How deeply groups are nested now (0: none is open).
    open var groupingLevel: Int {
        lock.withLock { openGroups.count }
    }

    /// Whether registering outside a group opens one for the current event (default true): a
    /// run-loop turn where a run loop runs, else until `undo()` or `endUndoGrouping()`.
    open var groupsByEvent: Bool {
        get { lock.withLock { storedGroupsByEvent } }
        set { lock.withLock { storedGroupsByEvent = newValue } }
    }

    /// The run-loop modes in which a group opened for an event is closed.
    open var runLoopModes: [RunLoop.Mode] {
        get { lock.withLock { storedRunLoopModes } }
        set { lock.withLock { storedRunLoopModes = newValue } }
    }

    /// How many top-level groups the undo stack keeps, the oldest dropped first (0, the default:
    /// all of them).
    open var levelsOfUndo: Int {
        get { lock.withLock { storedLevelsOfUndo } }
        set {
            lock.withLock {
                storedLevelsOfUndo = max(0, newValue)
                trim(&undoStack)
                trim(&redoStack)
            }
        }
    }

    // MARK: Undoing and redoing

    /// Whether there is something to undo: a group on the undo stack, or operations in the
    /// group open for the current event.
    open var canUndo: Bool {
        lock.withLock { !undoStack.isEmpty || openGroups.first.map { !$0.isEmpty } == true }
    }

    /// Whether there is something to redo. Posts `NSUndoManagerCheckpoint`, as Foundation does.
    open var canRedo: Bool {
        lock.withLock {
            post(.NSUndoManagerCheckpoint)
            return !redoStack.isEmpty
        }
    }

    /// Whether `undo()` or `undoNestedGroup()` is running its operations.
    open var isUndoing: Bool { lock.withLock { undoing } }

    /// Whether `redo()` is running its operations.
    open var isRedoing: Bool { lock.withLock { redoing } }

    /// Undoes the last group: posts `NSUndoManagerCheckpoint` (a context records its pending
    /// changes then), closes the top-level group if one is open, then runs the last group's
    /// operations, last registered first; what they register becomes the group `redo()` runs.
    open func undo() {
        lock.withLock {
            guard !undoing && !redoing else { return }
            post(.NSUndoManagerCheckpoint)
            if openGroups.count == 1 { closeGroup() }
            guard openGroups.isEmpty, let group = undoStack.popLast() else { return }  // Foundation raises inside a nested group
            runUndo(of: group)
        }
    }

    /// Undoes the last group, nested or top-level: the last group closed inside the open group
    /// when there is one, else the last group of the undo stack. What it registers goes on the
    /// redo stack.
    open func undoNestedGroup() {
        lock.withLock {
            guard !undoing && !redoing else { return }
            post(.NSUndoManagerCheckpoint)
            let group: Group
            if let open = openGroups.last {
                guard case .group(let nested)? = open.items.last else { return }
                open.items.removeLast()
                group = nested
            } else {
                guard let last = undoStack.popLast() else { return }
                group = last
            }
            runUndo(of: group)
        }
    }

    private func runUndo(of group: Group) {
        post(.NSUndoManagerWillUndoChange)
        run(group, undoing: true)
        post(.NSUndoManagerDidUndoChange)
    }

    /// Redoes the last undone group (closing a top-level group first, as `undo()` does); what
    /// its operations register goes back on the undo stack.
    open func redo() {
        lock.withLock {
            guard !undoing && !redoing else { return }
            post(.NSUndoManagerCheckpoint)
            if openGroups.count == 1 { closeGroup() }
            guard openGroups.isEmpty else { return }  // Foundation raises inside a group
            guard let group = redoStack.popLast() else { return }
            post(.NSUndoManagerWillRedoChange)
            run(group, undoing: false)
            post(.NSUndoManagerDidRedoChange)
        }
    }

    /// Runs `group`'s operations inside a new group that collects what they register, which
    /// goes on the redo stack (undoing) or the undo stack (redoing), under `group`'s name.
    private func run(_ group: Group, undoing isUndo: Bool) {
        if isUndo { undoing = true } else { redoing = true }
        // The collecting group is a top-level one, even when a group is open around an undone
        // nested group: what is collected goes on a stack, not into the open group.
        let around = openGroups
        openGroups = []
        defer {
            openGroups = around
            if isUndo { undoing = false } else { redoing = false }
        }
        openGroup()
        openGroups[0].actionName = group.actionName
        group.perform()
        // Groups the operations left open are closed with theirs.
        while !openGroups.isEmpty { closeGroup() }
    }

    // MARK: Removing

    /// Clears the undo and redo stacks and the open groups, and enables registration.
    open func removeAllActions() {
        lock.withLock {
            undoStack.removeAll()
            redoStack.removeAll()
            openGroups.removeAll()
            disableCount = 0
        }
    }

    /// Removes every operation on `target` from both stacks and the open groups.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        lock.withLock {
            for group in undoStack + redoStack + openGroups { group.removeOperations(on: object) }
            undoStack.removeAll { $0.isEmpty }
            redoStack.removeAll { $0.isEmpty }
        }
    }

    // MARK: Action names

    /// Names the group being recorded (the open top-level group, else the last group on the undo stack),
    /// for `undoMenuItemTitle` and `redoMenuItemTitle`.
    open func setActionName(_ actionName: String) {
        lock.withLock {
            // The top-level group is what undo() undoes and menus name.
            (openGroups.first ?? undoStack.last)?.actionName = actionName
        }
    }

    /// The name of what `undo()` would undo ("" when there is none or it has no name).
    open var undoActionName: String {
        lock.withLock {
            if let open = openGroups.first, openGroups.count == 1, !open.isEmpty { return open.actionName }
            return undoStack.last?.actionName ?? ""
        }
    }

    /// The name of what `redo()` would redo ("" when there is none or it has no name).
    open var redoActionName: String {
        lock.withLock { redoStack.last?.actionName ?? "" }
    }

    /// "Undo" followed by `undoActionName`, for a menu item.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// "Redo" followed by `redoActionName`, for a menu item.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// "Undo" followed by `actionName` when it is not empty. English only.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// "Redo" followed by `actionName` when it is not empty. English only.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: Opening and closing groups

    private func openGroup() {
        groupCount += 1
        openGroups.append(Group(number: groupCount))
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    private func closeGroup() {
        post(.NSUndoManagerCheckpoint)
        post(.NSUndoManagerWillCloseUndoGroup)
        let group = openGroups.removeLast()
        if let outer = openGroups.last {
            if !group.isEmpty { outer.items.append(.group(group)) }
        } else if !group.isEmpty {
            if undoing {
                redoStack.append(group)
                trim(&redoStack)
            } else {
                undoStack.append(group)
                trim(&undoStack)
            }
        }
        post(.NSUndoManagerDidCloseUndoGroup)
    }

    /// Drops the oldest groups beyond `levelsOfUndo`.
    private func trim(_ stack: inout [Group]) {
        if storedLevelsOfUndo > 0 && stack.count > storedLevelsOfUndo { stack.removeFirst(stack.count - storedLevelsOfUndo) }
    }

    /// Closes the group opened for the current event when the thread's run loop finishes its
    /// turn — only where a run loop is running; elsewhere the group stays open (see the type's
    /// documentation). A group of the caller's still open inside it puts the close off to the
    /// next turn.
    private func scheduleEventGroupClose(number: Int) {
        let runLoop = RunLoop.current
        guard runLoop.currentMode != nil else { return }
        runLoop.perform(inModes: storedRunLoopModes) { [weak self] in
            guard let self else { return }
            lock.withLock {
                guard eventGroupNumber == number, !openGroups.isEmpty else { return }
                if openGroups.count == 1 {
                    closeGroup()
                } else {
                    scheduleEventGroupClose(number: number)
                }
            }
        }
    }

    /// The number of the innermost group open now, or nil when none is: operations registered
    /// while the same number is open are in one group, undone together by `undo()` or
    /// `undoNestedGroup()` (a context does not record a new object's own changes one by one
    /// while the group it was inserted in is the one recording).
    package var openGroupNumber: Int? {
        lock.withLock { openGroups.last?.number }
    }

    private func post(_ name: NSNotification.Name) {
        NotificationCenter.default.post(name: name, object: self)
    }
}
