enum Usage {
    static let text = """
        usage: ocd <command> [options]

        commands:
          example [--store PATH]   build a small Core Data stack on a SQLite store and walk through
                                   insert, save, reopen, fetch, update and delete, printing each step
                                   (the store goes to a fresh temporary directory unless --store is given)
          help                     show this text
        """
}
