import Foundation

/// The localized names of a model's entities, properties and error strings
/// (`NSManagedObjectModel.localizationDictionary`), set in code or read from the strings file
/// Xcode projects give a model: `<ModelName>Model.strings`, in the folder that holds the model
/// file or in one of its `.lproj` folders (the preferred languages first, then `Base` and `en`).
///
/// ```swift
/// model.localizationDictionary = ["Entity/Club": "Verein", "Property/name/Entity/Club": "Vereinsname"]
/// ModelLocalization.name(ofProperty: "name", entity: "Club", in: model)   // "Vereinsname"
/// ```
package enum ModelLocalization {
    /// What the model's localization dictionary holds: set in code, read from its strings file,
    /// or not looked for yet.
    enum State {
        case unread
        case known([String: String]?)
    }

    /// The localized name of `entity`, or `entity` itself.
    package static func name(ofEntity entity: String, in model: NSManagedObjectModel?) -> String {
        model?.localizationDictionary?["Entity/\(entity)"] ?? entity
    }

    /// The localized name of the property `property` of `entity`: the entity's own, then the
    /// model-wide one, then `property` itself.
    package static func name(ofProperty property: String, entity: String, in model: NSManagedObjectModel?) -> String {
        guard let dictionary = model?.localizationDictionary else { return property }
        return dictionary["Property/\(property)/Entity/\(entity)"] ?? dictionary["Property/\(property)"] ?? property
    }

    /// The localized form of an error string of the model's (a validation warning), or the string.
    package static func errorString(_ string: String, in model: NSManagedObjectModel?) -> String {
        model?.localizationDictionary?["ErrorString/\(string)"] ?? string
    }

    /// The strings file of the model loaded from `fileURL`, read; nil when there is none or it
    /// cannot be read as a strings file.
    static func dictionary(forModelAt fileURL: URL?) -> [String: String]? {
        guard let fileURL else { return nil }
        var model = fileURL
        // A version inside a bundle (`Model.xcdatamodeld/Model 2.xcdatamodel`, `Model.momd/Model.mom`)
        // is localized by the bundle's strings file.
        if ["xcdatamodeld", "momd"].contains(model.deletingLastPathComponent().pathExtension) { model.deleteLastPathComponent() }
        let fileName = model.deletingPathExtension().lastPathComponent + "Model.strings"
        let folder = model.deletingLastPathComponent()
        let languages = Locale.preferredLanguages.flatMap { [$0, String($0.prefix { $0 != "-" && $0 != "_" })] } + ["Base", "en"]
        var candidates = languages.map { folder.appendingPathComponent("\($0).lproj").appendingPathComponent(fileName) }
        candidates.append(folder.appendingPathComponent(fileName))
        for candidate in candidates {
            guard let data = FileManager.default.contents(atPath: candidate.path) else { continue }
            return strings(in: data)
        }
        return nil
    }

    /// The pairs of a strings file (`"key" = "value";`, UTF-8 or UTF-16); nil when it is not one.
    static func strings(in data: Data) -> [String: String]? {
        // A binary property list is not a strings file (and Foundation's reader is not trusted
        // with a damaged one on Linux).
        guard !data.starts(with: Array("bplist".utf8)),
              let list = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else { return nil }
        return list.compactMapValues { $0 as? String }
    }
}
