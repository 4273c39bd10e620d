import Foundation
import OpenCoreData

/// `ocd codegen MODEL --out DIR [--all] [--entity NAME …]`: Xcode's code generation for a model's
/// entities, as files that compile with Apple's Core Data and with OpenCoreData's `import CoreData`
/// (see `ClassFileGenerator`).
///
/// Each entity is generated as its model asks: "Class Definition" (`codeGenerationType="class"`)
/// writes `Name+CoreDataClass.swift` and `Name+CoreDataProperties.swift`, "Category/Extension"
/// (`category`) only the properties file, "Manual/None" nothing — unless `--all` (every entity
/// with a class of its own, both files) or `--entity` (those entities, both files).
enum CodegenCommand {
    static func run(_ arguments: [String]) -> Int32 {
        Output.exitCode {
            var modelPath: String?
            var outPath: String?
            var all = false
            var named: [String] = []
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--out":
                    guard let value = remaining.popFirst() else { throw UsageError("--out needs a folder") }
                    outPath = value
                case "--all":
                    all = true
                case "--entity":
                    guard let value = remaining.popFirst() else { throw UsageError("--entity needs an entity name") }
                    named.append(value)
                default:
                    if argument.hasPrefix("-") { throw UsageError("unknown option '\(argument)'") }
                    guard modelPath == nil else { throw UsageError("unexpected argument '\(argument)'") }
                    modelPath = argument
                }
            }
            guard let modelPath else { throw UsageError("missing the model path") }
            guard let outPath else { throw UsageError("missing --out FOLDER") }
            let model = try NSManagedObjectModel(validatingContentsOf: try CommandOptions.existing(modelPath))
            for name in named where model.entitiesByName[name] == nil {
                throw CommandFailure("\(modelPath): no entity named '\(name)'")
            }
            let out = URL(fileURLWithPath: outPath)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            var written: [String] = []
            for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
                let generator = ClassFileGenerator(entity: entity)
                let files = filesToWrite(for: entity, generator: generator, all: all, named: named)
                for (name, text) in files {
                    try Data(text.utf8).write(to: out.appendingPathComponent(name), options: .atomic)
                    written.append(name)
                }
            }
            if written.isEmpty {
                throw CommandFailure("\(modelPath): no entity asks for code generation (codeGenerationType class or category); use --all or --entity NAME")
            }
            for name in written { print(out.appendingPathComponent(name).path) }
        }
    }

    private static func filesToWrite(for entity: NSEntityDescription, generator: ClassFileGenerator, all: Bool,
                                     named: [String]) -> [(String, String)] {
        guard generator.hasClass else { return [] }
        let classFile = ("\(generator.className)+CoreDataClass.swift", generator.classFile)
        let propertiesFile = ("\(generator.className)+CoreDataProperties.swift", generator.propertiesFile)
        if !named.isEmpty { return named.contains(entity.name ?? "") ? [classFile, propertiesFile] : [] }
        if all { return [classFile, propertiesFile] }
        switch entity.codeGenerationType {
        case "class": return [classFile, propertiesFile]
        case "category": return [propertiesFile]
        default: return []
        }
    }
}
