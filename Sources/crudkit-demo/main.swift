// The demo walk arrives with the CRUD layer; until then the executable only says so.
print("crudkit-demo: not yet available")
