import Foundation

/// A bookmark in the persistent history of one or more stores: the last transaction seen in
/// each. Keep one to ask later for what happened since (`fetchHistory(after:)`).
///
/// ```swift
/// let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
/// let data = try JSONEncoder().encode(token)          // or NSKeyedArchiver, as on Apple's platforms
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
/// ```
/// Tokens compare equal when they mark the same transactions of the same stores, and order
/// (`<`) when one lies before the other in every store they share — an OpenCoreData addition,
/// as are `Codable` and the public `transactionNumber(forStoreWithIdentifier:)`.
public final class NSPersistentHistoryToken: NSObject, NSSecureCoding, Codable, @unchecked Sendable {
    // @unchecked Sendable: immutable after init (a final class whose one field is a `let`).

    /// The number of the last transaction seen, by store identifier (`NSStoreUUIDKey`).
    package let transactionNumbers: [String: Int64]

    package init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }

    /// A token that has seen the transactions up to `number` of the store with `identifier`:
    /// for tools that keep a transaction number rather than a token. An OpenCoreData addition.
    public convenience init(transactionNumber number: Int64, inStoreWithIdentifier identifier: String) {
        self.init(transactionNumbers: [identifier: number])
    }

    /// The number of the last transaction this token has seen in the store with `identifier`,
    /// or nil when the token does not know the store.
    public func transactionNumber(forStoreWithIdentifier identifier: String) -> Int64? {
        transactionNumbers[identifier]
    }

    // MARK: Equality and order

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.transactionNumbers == transactionNumbers
    }

    public override var hash: Int { transactionNumbers.hashValue }

    /// Whether `lhs` lies before `rhs`: not after it in any store both know, and before it in one.
    public static func < (lhs: NSPersistentHistoryToken, rhs: NSPersistentHistoryToken) -> Bool {
        var before = false
        for (store, number) in lhs.transactionNumbers {
            guard let other = rhs.transactionNumbers[store] else { continue }
            if number > other { return false }
            if number < other { before = true }
        }
        return before
    }

    public override var description: String {
        let stores = transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return "<NSPersistentHistoryToken - {\(stores.joined(separator: ", "))}>"
    }

    // MARK: Archiving

    public static var supportsSecureCoding: Bool { true }

    private static let numbersKey = "NSStoreTokens"

    public func encode(with coder: NSCoder) {
        let numbers = NSMutableDictionary()
        for (store, number) in transactionNumbers { numbers[NSString(string: store)] = NSNumber(value: number) }
        coder.encode(numbers, forKey: Self.numbersKey)
    }

    public required init?(coder: NSCoder) {
        guard let numbers = coder.decodeObject(of: [NSDictionary.self, NSString.self, NSNumber.self], forKey: Self.numbersKey)
                as? NSDictionary else { return nil }
        var decoded: [String: Int64] = [:]
        for (key, value) in numbers {
            guard let store = (key as? NSString).map(String.init), let number = (value as? NSNumber)?.int64Value else { return nil }
            decoded[store] = number
        }
        transactionNumbers = decoded
    }

    private enum CodingKeys: String, CodingKey { case transactionNumbers }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transactionNumbers, forKey: .transactionNumbers)
    }

    public required init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transactionNumbers = try container.decode([String: Int64].self, forKey: .transactionNumbers)
    }
}

extension NSPersistentHistoryToken: NSCopying {
    /// The same object: a token never changes, so a copy is the object itself, as with
    /// Foundation's immutable classes.
    ///
    /// ```swift
    /// let same = value.copy(with: nil) as! NSPersistentHistoryToken
    /// ```
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
