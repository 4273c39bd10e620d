import Foundation
import OCDPostgres
import OpenCoreDataCore

/// The rows a fetch answered in memory refers to, read from the store as the predicate or sort
/// asks for them (a query per to-one destination or to-many first needed), kept for the rest of
/// the fetch. A read that fails is kept as `failure`, for the fetch to throw.
final class PostgresRowSource: StoredRowSource {
    private unowned let store: PostgreSQLStore
    private let connection: PostgresConnection
    private var rows: [RowKey: RowSnapshot?] = [:]
    private var memberships: [MembershipKey: [RowSnapshot]] = [:]
    private(set) var failure: Error?

    private struct RowKey: Hashable {
        let root: ObjectIdentifier
        let key: Int64
    }

    private struct MembershipKey: Hashable {
        let relationship: ObjectIdentifier
        let source: Int64
    }

    init(store: PostgreSQLStore, connection: PostgresConnection, rows known: [RowSnapshot]) {
        self.store = store
        self.connection = connection
        for row in known { rows[RowKey(root: row.rootIdentity, key: row.primaryKey)] = row }
    }

    func row(for objectID: NSManagedObjectID) -> RowSnapshot? {
        guard let key = objectID.primaryKey, failure == nil else { return nil }
        let rowKey = RowKey(root: objectID.rootIdentity, key: key)
        if let known = rows[rowKey] { return known }
        do {
            let row = try store.readSnapshots(for: [objectID], on: connection).first
            rows[rowKey] = .some(row)
            return row
        } catch {
            failure = error
            return nil
        }
    }

    func members(of source: NSManagedObjectID, through relationship: NSRelationshipDescription) -> [RowSnapshot] {
        guard let key = source.primaryKey, failure == nil else { return [] }
        let membershipKey = MembershipKey(relationship: ObjectIdentifier(relationship), source: key)
        if let known = memberships[membershipKey] { return known }
        do {
            let members = try store.readRelatedSnapshots(of: [source], through: relationship, on: connection)[source] ?? []
            memberships[membershipKey] = members
            return members
        } catch {
            failure = error
            return []
        }
    }
}
