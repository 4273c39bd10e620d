import Foundation

/// A binary value a store keeps outside its rows — a file of the SQLite store's external data
/// folder — read when it is first used, not when its row is read.
///
/// A fetch of many objects whose large values live in files opens none of them: only the values
/// the application reads are mapped into memory (once each; later reads share the mapping).
/// A missing or unreadable file therefore stops neither the fetch, nor the fault, nor a delete:
/// the value reads as nil, and the problem is logged once, naming the file; a store that must
/// copy the value (moving a store, writing it again) fails with the error instead.
///
/// The store that made the value has it read before a save that gives its file up deletes the
/// file (the mapping outlives the file), so an object still holding the old value keeps it;
/// `onFirstUseOrEnd` tells the store when it no longer needs to.
@usableFromInline package final class ExternalBinaryData: @unchecked Sendable {
    // @unchecked Sendable: `location`, `reader` and `onFirstUseOrEnd` never change; `state` and
    // `loggedFailure` are only touched under `lock`.

    /// What identifies the value in its store (the file's path).
    package let location: String
    private let reader: @Sendable () throws -> Data
    private let onFirstUseOrEnd: (@Sendable (ObjectIdentifier) -> Void)?
    private let lock = NSLock()
    private var state = State.unread

    private enum State {
        case unread
        case read(Data)
    }

    /// Whether a failed read was logged: a value's problem is told once.
    private var loggedFailure = false

    /// A value at `location` that `reader` reads; `onFirstUseOrEnd` is given the value's
    /// identity once, after the first read that succeeds or when the value is gone unread.
    package init(location: String, reader: @escaping @Sendable () throws -> Data, onFirstUseOrEnd: (@Sendable (ObjectIdentifier) -> Void)? = nil) {
        self.location = location
        self.reader = reader
        self.onFirstUseOrEnd = onFirstUseOrEnd
    }

    deinit {
        // No other reference is left: `state` is this thread's alone.
        if case .read = state { return }
        onFirstUseOrEnd?(ObjectIdentifier(self))
    }

    /// The bytes, read at the first call that succeeds; what the read threw, at a call that
    /// fails (a later call tries again: the failure may have passed, as when out of file
    /// descriptors).
    package func data() throws -> Data {
        let (outcome, firstUse): (Result<Data, any Error>, Bool) = lock.withLock {
            if case .read(let data) = state { return (.success(data), false) }
            do {
                let data = try reader()
                state = .read(data)
                return (.success(data), true)
            } catch {
                if !loggedFailure {
                    loggedFailure = true
                    ExternalBinaryData.log(error)
                }
                return (.failure(error), false)
            }
        }
        if firstUse { onFirstUseOrEnd?(ObjectIdentifier(self)) }
        return try outcome.get()
    }

    /// The bytes, or nil when they can't be read (logged at the first failure).
    package var dataIfReadable: Data? { try? data() }

    /// Core Data logs what it cannot read and goes on; so does OpenCoreData, on standard error.
    private static func log(_ error: any Error) {
        let message = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
        FileHandle.standardError.write(Data("CoreData: error: \(message)\n".utf8))
    }
}

extension PrimitiveValue {
    /// The value with a value kept outside the row read into memory, for a store that writes it
    /// elsewhere; throws what reading it threw (a missing file, naming it).
    package func readingExternalData() throws -> PrimitiveValue {
        guard case .externalData(let value) = self else { return self }
        return .data(try value.data())
    }
}
