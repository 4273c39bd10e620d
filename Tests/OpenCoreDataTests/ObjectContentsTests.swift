import Foundation
@testable import OpenCoreDataCore
import Testing

/// An object's contents (flags, values, relationships, saved state) change as a whole only
/// through `ObjectContents`' transitions; each keeps exactly what it says. These tests pin what
/// survives each transition, since undo, refreshes, merges and saves rely on it.
@Suite struct ObjectContentsTests {
    private func realized() -> ObjectContents {
        var contents = ObjectContents.detached
        contents.fillWithDefaults([.integer(1), .string("a")])
        contents.state = [.updated, .changedInEvent, .listedUpdated]
        contents.changedAttributeMask = 0b11
        contents.relations = [.unresolved]
        contents.rejectedValues = ["age": "not a number"]
        return contents
    }

    @Test func aDetachedObjectHoldsNothingUntilItsDefaultsAreSet() {
        var contents = ObjectContents.detached
        #expect(contents.state == .needsDefaultValues)
        #expect(contents.values.isEmpty)
        contents.fillWithDefaults([.integer(7)])
        #expect(contents.state.isEmpty)
        #expect(contents.values == [.integer(7)])
    }

    @Test func becomingAFaultDropsValuesRelationshipsAndRefusalsButKeepsOtherFlags() {
        var contents = realized()
        contents.enterFault(of: nil)
        #expect(contents.state == [.fault, .listedUpdated])  // no longer updated in this event
        #expect(contents.values.isEmpty)
        #expect(contents.relations.isEmpty)
        #expect(contents.rejectedValues.isEmpty)
        #expect(contents.changedAttributeMask == 0)
        #expect(contents.snapshot == nil)
    }

    @Test func fillingAFaultClearsTheFaultAndWhatChangedButKeepsRefusals() {
        var contents = ObjectContents.detached
        contents.enterFaultFromDetached()
        contents.rejectedValues = ["x": "y"]
        contents.fill(with: [.double(2.5)])
        #expect(contents.state.isEmpty)
        #expect(contents.values == [.double(2.5)])
        #expect(contents.rejectedValues == ["x": "y"])
        #expect(contents.faultBatch == nil)
    }

    @Test func anInaccessibleOrUnreadableFaultReadsNil() {
        var inaccessible = ObjectContents.detached
        inaccessible.enterFaultFromDetached()
        inaccessible.fillAsInaccessible(attributeCount: 2)
        #expect(inaccessible.state == .inaccessible)
        #expect(inaccessible.values == [.null, .null])

        var unreadable = ObjectContents.detached
        unreadable.enterFaultFromDetached()
        unreadable.fillAsUnreadable(attributeCount: 1, reason: "disk error")
        #expect(unreadable.values == [.null])
        #expect(unreadable.rejectedValues[ObjectContents.unreadableKey] == "disk error")
    }

    @Test func aNewObjectKeepsItsRelationshipsAndRefusals() {
        var contents = realized()
        contents.enterNew(defaults: [.integer(0), .null])
        #expect(contents.state == .inserted)
        #expect(contents.values == [.integer(0), .null])
        #expect(contents.relations.count == 1)
        #expect(contents.rejectedValues == ["age": "not a number"])
        #expect(contents.changedAttributeMask == 0)
        #expect(contents.snapshot == nil)
    }

    @Test func committingKeepsValuesAndRelationshipsAndClearsFlagsAndChanges() {
        var contents = realized()
        contents.commit(nil)
        #expect(contents.state.isEmpty)
        #expect(contents.changedAttributeMask == 0)
        #expect(contents.values == [.integer(1), .string("a")])
        #expect(contents.relations.count == 1)
    }

    @Test func leavingTheContextKeepsEverythingButFlagsSoUndoCanBringTheObjectBack() {
        var contents = realized()
        contents.leaveContext()
        #expect(contents.state.isEmpty)
        #expect(contents.values == [.integer(1), .string("a")])
        #expect(contents.relations.count == 1)
        contents.comeBack()
        #expect(contents.state == .inserted)
        #expect(contents.values == [.integer(1), .string("a")])

        var fault = ObjectContents.detached
        fault.enterFaultFromDetached()
        fault.leaveContext()
        #expect(fault.state == .needsDefaultValues)  // never read: reads its defaults from then on
    }
}
