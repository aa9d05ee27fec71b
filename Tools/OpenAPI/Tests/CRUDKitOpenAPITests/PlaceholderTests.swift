import Testing
import CRUDKit
import CRUDKitOpenAPI
@Suite struct PlaceholderTests { @Test func x() {} }
