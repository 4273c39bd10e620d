import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The map from new objects' temporary IDs to the keys a save gives them, in its compact
/// (array) and scattered (dictionary) forms.
@Suite struct TemporaryKeyMapTests {
    private func rows(_ ids: [NSManagedObjectID]) -> [SaveChanges.Row] {
        ids.map { SaveChanges.Row(objectID: $0, values: [], toOne: [], changedAttributeSlots: [], changedRelationshipSlots: [],
                                  expectedVersion: 0) }
    }

    @Test(arguments: [false, true])
    func everyNewObjectResolvesToItsKey(scattered: Bool) throws {
        let stack = try TestStack(.inMemory)
        let entity = try #require(stack.model.entitiesByName["Person"])
        let store = try #require(stack.coordinator.persistentStores.first)
        var temporary = (0..<50).map { _ in NSManagedObjectID(temporaryFor: entity) }
        if scattered {
            // Numbers far apart: one made much later than the others.
            for _ in 0..<5_000 { _ = NSManagedObjectID(temporaryFor: entity) }
            temporary.append(NSManagedObjectID(temporaryFor: entity))
        }
        let keys = temporary.indices.map { NSManagedObjectID(entity: entity, store: store, primaryKey: Int64(1_000 + $0)) }
        let map = TemporaryKeyMap(rows: rows(temporary), keys: keys)
        for (id, permanent) in zip(temporary, keys) { #expect(map.key(of: id) == permanent.primaryKey) }
        #expect(map.key(of: NSManagedObjectID(temporaryFor: entity)) == nil)  // not a row of this save
        #expect(map.key(of: keys[3]) == 1_003)  // a permanent ID is its own key
        #expect(map.key(of: nil) == nil)
    }

    @Test func anEmptyMapResolvesOnlyPermanentIDs() throws {
        let stack = try TestStack(.inMemory)
        let entity = try #require(stack.model.entitiesByName["Person"])
        let store = try #require(stack.coordinator.persistentStores.first)
        let map = TemporaryKeyMap()
        #expect(map.key(of: NSManagedObjectID(temporaryFor: entity)) == nil)
        #expect(map.key(of: NSManagedObjectID(entity: entity, store: store, primaryKey: 7)) == 7)
    }
}
