import Foundation
import Testing

/// The example app (Examples/ItemsApp: Xcode's Core Data app template — its PersistenceController,
/// its generated Item class files, a list that fetches, adds, filters and deletes — built through
/// `import CoreData`), run as a user runs it.
@Suite struct ItemsAppTests {
    @Test func theAppAddsFiltersDeletesAndFindsItsItemsAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-items-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("ItemsApp.sqlite").path
        let first = try Tool.run(["--store", store], executable: Tool.product("ItemsApp"))
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output == """
            opened: 
            added: Milk, Bread, Butter
            filtered by 'bu': Butter
            deleted the second: Milk, Butter
            preview items: 10

            """)
        let second = try Tool.run(["--store", store], executable: Tool.product("ItemsApp"))
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.hasPrefix("opened: Milk, Butter\nadded: Milk, Butter, Milk, Bread, Butter\n"))
    }

    @Test func withoutAStoreTheAppRunsInMemory() throws {
        let result = try Tool.run([], executable: Tool.product("ItemsApp"))
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("opened: \nadded: Milk, Bread, Butter\n"))
    }
}
