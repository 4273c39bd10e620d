import Foundation

/// `ocd`: OpenCoreData's command-line tool.
let arguments = Array(CommandLine.arguments.dropFirst())
let exitCode: Int32
switch arguments.first {
case "codegen":
    exitCode = CodegenCommand.run(Array(arguments.dropFirst()))
case "example":
    exitCode = await ExampleCommand.run(Array(arguments.dropFirst()))
case "fetch":
    exitCode = FetchCommand.run(Array(arguments.dropFirst()))
case "history":
    exitCode = HistoryCommand.run(Array(arguments.dropFirst()))
case "migrate":
    exitCode = MigrateCommand.run(Array(arguments.dropFirst()))
case "model":
    exitCode = ModelCommand.run(Array(arguments.dropFirst()))
case "port":
    exitCode = PortCommand.run(Array(arguments.dropFirst()))
case "predicate":
    exitCode = PredicateCommand.run(Array(arguments.dropFirst()))
case "store":
    exitCode = StoreCommand.run(Array(arguments.dropFirst()))
case nil, "help", "--help", "-h":
    print(Usage.text)
    exitCode = arguments.isEmpty ? 2 : 0
default:
    FileHandle.standardError.write(Data("ocd: unknown command '\(arguments[0])'\n\n\(Usage.text)\n".utf8))
    exitCode = 2
}
exit(exitCode)
