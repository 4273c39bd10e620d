import Foundation

/// Fetch request templates: named requests stored with the model (Xcode's "Fetch Requests"),
/// whose predicates may hold `$VARIABLE`s filled in when the request is made.
///
/// ```swift
/// model.setFetchRequestTemplate(olderThan, forName: "PeopleOlderThan")   // age > $AGE
/// let request = model.fetchRequestFromTemplate(withName: "PeopleOlderThan",
///                                               substitutionVariables: ["AGE": 30])
/// ```
extension NSManagedObjectModel {
    /// Every template by name.
    public var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] {
        fetchRequestTemplates
    }

    /// The template named `name` as stored (its variables not substituted), or nil.
    public func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        fetchRequestTemplates[name]
    }

    /// Stores `fetchRequest` as the template named `name`; nil removes the template.
    public func setFetchRequestTemplate(_ fetchRequest: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        precondition(!isFrozen, "Can't edit a managed object model that is already in use")
        fetchRequestTemplates[name] = fetchRequest
    }

    /// A new request made from the template named `name`, with `$VARIABLE`s in its predicate
    /// replaced by `variables`; nil when there is no such template.
    public func fetchRequestFromTemplate(withName name: String,
                                         substitutionVariables variables: [String: Any]) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = fetchRequestTemplates[name] else { return nil }
        let request = template.copy(as: NSFetchRequestResult.self)
        request.predicate = template.predicate?.withSubstitutionVariables(variables)
        return request
    }
}
