import Foundation
import Synchronization

/// A generation of a coordinator's stores: for each store that can keep one (a SQLite store in
/// WAL mode), a reader holding the state the store had when the generation began. The other
/// stores (in memory, incremental, SQLite without WAL) are read at their newest state, as
/// Core Data's "graceful revert to unpinned behaviour" does.
///
/// Shared by every context pinned to it and by every token naming it; its readers are given back
/// when the last of them lets it go.
package final class QueryGeneration: Sendable {
    /// The pinned readers, each with its store (weakly: a store removed and freed is not
    /// mistaken for another that takes its address).
    private let pins: [StorePin]
    /// The coordinator whose stores it pins: a token of another coordinator is refused.
    let coordinator: ObjectIdentifier
    /// A number for descriptions, in the order generations began in the process.
    let number: Int

    private static let counter = Atomic<Int>(0)

    /// Begins a generation of `coordinator`'s stores as they are now.
    init(pinning coordinator: NSPersistentStoreCoordinator) throws {
        var pins: [StorePin] = []
        for store in coordinator.persistentStores {
            if let pin = try store.seam.pinCurrentGeneration() { pins.append(StorePin(store: store, pin: pin)) }
        }
        self.pins = pins
        self.coordinator = ObjectIdentifier(coordinator)
        number = Self.counter.add(1, ordering: .relaxed).newValue
        Self.living.withLock { $0[number] = WeakGeneration(generation: self) }
    }

    deinit {
        let number = number
        Self.living.withLock { _ = $0.removeValue(forKey: number) }
    }

    // MARK: Finding a generation by number (for tokens decoded from an archive)

    /// Names this process, so that an archived token decoded in another process is not taken
    /// for a generation of this one that has the same number.
    static let processIdentifier = UUID().uuidString

    /// The generations alive in this process, by number.
    private static let living = Mutex<[Int: WeakGeneration]>([:])

    /// The generation numbered `number` in the process `process`, if it is still alive here.
    static func alive(number: Int, process: String) -> QueryGeneration? {
        guard process == processIdentifier else { return nil }
        return living.withLock { $0[number]?.generation }
    }

    /// The reader of `store`'s state in this generation, or nil when the store keeps none.
    package func pin(for store: NSPersistentStore) -> (any StoreGenerationPin)? {
        pins.first { $0.store === store }?.pin
    }

    /// Whether any store keeps this generation (when none does, pinning changes nothing).
    var pinsAnyStore: Bool { !pins.isEmpty }
}

private struct WeakGeneration: Sendable {
    weak var generation: QueryGeneration?
}

/// A store's reader of a generation.
private struct StorePin: Sendable {
    weak var store: NSPersistentStore?
    let pin: any StoreGenerationPin
}

/// A store's side of a query generation: what it reads the generation's state through. The store
/// that made it is the only one that uses it; it lets its reader go when it is released.
package protocol StoreGenerationPin: AnyObject, Sendable {}
