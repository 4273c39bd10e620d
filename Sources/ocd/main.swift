print("ocd")
