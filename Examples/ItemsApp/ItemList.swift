//
//  ItemList.swift
//  ItemsApp
//
//  What the template's ContentView does with its @FetchRequest, as a list model: fetch sorted by
//  timestamp, add, filter with an NSPredicate, delete.
//

import CoreData

@MainActor
final class ItemList {
    let viewContext: NSManagedObjectContext
    private(set) var items: [Item] = []

    /// Shows only the items whose name contains this text (case and diacritics ignored).
    var filter = "" {
        didSet { refresh() }
    }

    init(viewContext: NSManagedObjectContext) {
        self.viewContext = viewContext
        refresh()
    }

    func refresh() {
        let request: NSFetchRequest<Item> = Item.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(keyPath: \Item.timestamp, ascending: true)]
        if !filter.isEmpty {
            request.predicate = NSPredicate(format: "name CONTAINS[cd] %@", filter)
        }
        do {
            items = try viewContext.fetch(request)
        } catch {
            let nsError = error as NSError
            fatalError("Unresolved error \(nsError), \(nsError.userInfo)")
        }
    }

    func addItem(named name: String) {
        let newItem = Item(context: viewContext)
        newItem.timestamp = Date()
        newItem.name = name
        save()
    }

    func deleteItems(offsets: IndexSet) {
        offsets.map { items[$0] }.forEach(viewContext.delete)
        save()
    }

    private func save() {
        do {
            try viewContext.save()
        } catch {
            let nsError = error as NSError
            fatalError("Unresolved error \(nsError), \(nsError.userInfo)")
        }
        refresh()
    }
}
