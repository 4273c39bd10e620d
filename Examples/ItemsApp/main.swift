//
//  main.swift
//  ItemsApp
//
//  The template's app as a command: `swift run ItemsApp [--store PATH]` adds, filters and deletes
//  items, printing the list after each step. Without --store the store is in memory (/dev/null,
//  as the template's previews use it); with it, a second run finds what the first saved.
//

import CoreData
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let storeURL = arguments.first == "--store" ? arguments.dropFirst().first.map { URL(fileURLWithPath: $0) } : nil
let controller = storeURL.map { PersistenceController(storeURL: $0) } ?? PersistenceController(inMemory: true)
let list = ItemList(viewContext: controller.container.viewContext)

@MainActor func show(_ step: String) {
    print("\(step): \(list.items.map { $0.name ?? "?" }.joined(separator: ", "))")
}

show("opened")
for name in ["Milk", "Bread", "Butter"] {
    list.addItem(named: name)
}
show("added")
list.filter = "bu"
show("filtered by 'bu'")
list.filter = ""
list.deleteItems(offsets: IndexSet(integer: 1))
show("deleted the second")
let previewContext = PersistenceController.preview.container.viewContext
print("preview items: \((try? previewContext.count(for: Item.fetchRequest())) ?? -1)")
