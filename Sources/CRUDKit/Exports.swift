// The lower layers, re-exported so that `import CRUDKit` is the only import a user writes (README, "Architecture").
@_exported import CRUDKitCore
@_exported import CRUDKitFuture
@_exported import CRUDKitHTTP
@_exported import CRUDKitJSON
