import CNcursesw
print("habitto", NCURSES_VERSION_MAJOR)
