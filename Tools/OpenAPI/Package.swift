// swift-tools-version: 6.1
import PackageDescription

// crudkit-openapi: CRUDKit models from a server's OpenAPI document. Its own package so that the root CRUDKit
// package keeps no dependencies; the root is used (by path) only by the tests that compile generated code.
let package = Package(
    name: "CRUDKitOpenAPI",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "CRUDKitOpenAPI", targets: ["CRUDKitOpenAPI"]),
        .executable(name: "crudkit-openapi", targets: ["crudkit-openapi"]),
        .plugin(name: "CRUDKitOpenAPIPlugin", targets: ["CRUDKitOpenAPIPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(name: "CRUDKit", path: "../.."),
    ],
    targets: [
        .target(
            name: "CRUDKitOpenAPI",
            dependencies: [
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .executableTarget(
            name: "crudkit-openapi",
            dependencies: [
                "CRUDKitOpenAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "crudkit-openapi-bench", dependencies: ["CRUDKitOpenAPI"]),
        .plugin(
            name: "CRUDKitOpenAPIPlugin",
            capability: .buildTool(),
            dependencies: ["crudkit-openapi"]
        ),
        // The generator's output for the two fixtures, committed as snapshots and compiled: the tests check that
        // generating again gives the same bytes, and use the models against a stub server.
        .target(
            name: "OpenAPISnapshotPeople30",
            dependencies: [.product(name: "CRUDKit", package: "CRUDKit")],
            path: "Tests/Snapshots/People30"
        ),
        .target(
            name: "OpenAPISnapshotPets31",
            dependencies: [.product(name: "CRUDKit", package: "CRUDKit")],
            path: "Tests/Snapshots/Pets31"
        ),
        // Keys that are Swift keywords or not identifiers, integer and duplicate enums, allOf and $ref cycles.
        .target(
            name: "OpenAPISnapshotNames31",
            dependencies: [.product(name: "CRUDKit", package: "CRUDKit")],
            path: "Tests/Snapshots/Names31"
        ),
        // Schemas named like the types generated code uses, colliding names, odd keys and enums, references to
        // nowhere, outside the document or into themselves, and path templates CRUDKit cannot address.
        .target(
            name: "OpenAPISnapshotUnusual31",
            dependencies: [.product(name: "CRUDKit", package: "CRUDKit")],
            path: "Tests/Snapshots/Unusual31"
        ),
        // The build plugin's proof: this target holds only openapi.yaml and crudkit-openapi.yaml; its models are
        // generated at build time by CRUDKitOpenAPIPlugin, and the tests use them.
        .target(
            name: "OpenAPIPluginFixture",
            dependencies: [.product(name: "CRUDKit", package: "CRUDKit")],
            path: "Tests/PluginFixture",
            plugins: [.plugin(name: "CRUDKitOpenAPIPlugin")]
        ),
        .testTarget(
            name: "CRUDKitOpenAPITests",
            dependencies: [
                "CRUDKitOpenAPI", "OpenAPISnapshotPeople30", "OpenAPISnapshotPets31", "OpenAPISnapshotNames31",
                "OpenAPISnapshotUnusual31", "OpenAPIPluginFixture",
                .product(name: "CRUDKit", package: "CRUDKit"),
                .product(name: "CRUDKitTesting", package: "CRUDKit"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .plugin {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
