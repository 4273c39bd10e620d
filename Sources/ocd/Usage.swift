enum Usage {
    static let text = """
        usage: ocd <command> [options]

        commands:
          example [--store PATH]   build a small Core Data stack on a SQLite store and walk through
                                   insert, save, reopen, fetch, update and delete, printing each step
                                   (the store goes to a fresh temporary directory unless --store is given)
          codegen MODEL --out DIR [--all] [--entity NAME …]
                                   write Xcode's generated class files (Name+CoreDataClass.swift,
                                   Name+CoreDataProperties.swift) for the entities whose code generation is
                                   Class Definition or Category/Extension (--all: every entity with a class),
                                   compiling with Apple's Core Data and with OpenCoreData's import CoreData
          migrate --store PATH --model BUNDLE [--to VERSION] [--dry-run] [--json]
                                   migrate a SQLite store to a model version (the bundle's current one
                                   unless --to names another): print the plan (the source version and
                                   how it was found, the change to each entity and property), run it
                                   with a progress bar on a terminal; --dry-run changes nothing
          model show PATH [--json]
                                   print a model: a .xcdatamodeld, .xcdatamodel, .momd or .mom, or the
                                   model a SQLite store carries
          model diagram PATH [--format dot|svg]
                                   draw a model (or a store's model) as a Graphviz graph: DOT text, or
                                   SVG through Graphviz's dot (apt-get install graphviz)
          fetch STORE --entity NAME [--where FORMAT [ARG …]] [--sort KEY[:desc] …] [--limit N]
                [--offset N] [--model PATH] [--json | --csv]
                                   the objects a fetch request returns, as a table (to-ones as URIs,
                                   to-manys as counts); without --model, the store's own model
          history STORE [--after N|DATE] [--author NAME] [--model MODEL] [--json]
                                   print the persistent history a store records (OpenCoreData's or
                                   Apple's): each transaction after transaction N or an ISO 8601 date,
                                   with its author, context, process and changes
          store info PATH [--model MODEL] [--json]
                                   print a store's metadata and object counts, and whether MODEL fits it
          store dump PATH [--model MODEL] [--json]
                                   print every object of a store: entity, URI, attributes, relationships
                                   (without --model, the store's own model is used)
          store convert --from PATH|URL --to PATH|URL --type binary|xml|sqlite|postgresql [--model MODEL]
                                   copy every object of a store into a new store of another type, with
                                   a progress bar on a terminal (a binary or XML source needs --model)
          port PATH… [--dry-run]   make Core Data code written for Apple's SDK build on Linux too, in place:
                                   @objc under #if canImport(ObjectiveC), @NSManaged as @Managed or
                                   ManagedKey properties and written-out accessors, #keyPath as strings,
                                   overrides moved out of extensions, validate<Key> methods called from a
                                   validateValue(_:forKey:) override; prints a diff (undo: patch -R) and
                                   what it could not do, with file and line
          predicate FORMAT [ARG …] [--entity NAME --model PATH] [--json]
                                   parse a predicate format string (arguments as JSON values: 30, '"tea"')
                                   and print it back; with an entity and a model, the SQL it runs
          help                     show this text

        Stores are opened read-only, except by migrate (store convert writes only its new store). --json output is described in Docs/ocd-json.md.
        """
}
