/// A section of a tracker's results, as `sections` hands it out: its name, size and objects,
/// read from the tracker when asked (a section of 100,000 objects copies nothing until its
/// `objects` are read).
final class TrackedSection: NSFetchedResultsSectionInfo {
    let name: String
    /// How many objects the section holds now.
    var count = 0
    /// Where the section stands among the tracker's sections (-1 once it is gone).
    var slot = 0
    /// Where it stood before the current round (-1 for a section the round made).
    var indexBeforeRound = -1
    /// Whether the round deleted this section and inserted it again elsewhere (an emptied
    /// section refilled out of its former order): its objects then leave and arrive, not move.
    var isReplacedInRound = false
    /// Weak: a section kept after its controller went away reads as empty.
    private weak var tracker: FetchedResultsTracker?

    init(name: String, tracker: FetchedResultsTracker) {
        self.name = name
        self.tracker = tracker
    }

    var numberOfObjects: Int { slot >= 0 ? count : 0 }

    var indexTitle: String? {
        guard let tracker else { return Self.capitalizedFirstLetter(name) }
        return tracker.indexTitle(name)
    }

    var objects: [Any]? { tracker?.objects(of: self) ?? [] }

    /// Core Data's default section index title: the section name's first letter, capitalized.
    static func capitalizedFirstLetter(_ name: String) -> String? {
        name.first.map { String($0).uppercased() }
    }
}
