// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CRUDKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CRUDKit", targets: ["CRUDKit"]),
        .library(name: "CRUDKitTesting", targets: ["CRUDKitTesting"]),
        .executable(name: "crudkit-demo", targets: ["crudkit-demo"]),
    ],
    dependencies: [],
    targets: [
        // The layers, bottom to top; each module may use only the ones listed as its dependencies (README,
        // "Architecture"; .ci/layers.sh checks this graph). `CRUDKit` re-exports the four below it, so a user
        // writes only `import CRUDKit`.
        .target(name: "CRUDKitCore"),
        .target(name: "CRUDKitFuture", dependencies: ["CRUDKitCore"]),
        .target(name: "CRUDKitJSON"),
        .target(name: "CRUDKitHTTP", dependencies: ["CRUDKitCore"]),
        .target(
            name: "CRUDKit",
            dependencies: ["CRUDKitCore", "CRUDKitFuture", "CRUDKitJSON", "CRUDKitHTTP"]
        ),
        .target(name: "CRUDKitTesting", dependencies: ["CRUDKit"]),
        .executableTarget(name: "crudkit-demo", dependencies: ["CRUDKit", "CRUDKitTesting"]),
        .testTarget(
            name: "CRUDKitTests",
            dependencies: [
                "CRUDKit", "CRUDKitTesting", "CRUDKitCore", "CRUDKitFuture", "CRUDKitJSON", "CRUDKitHTTP",
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "CRUDKitInteropTests", dependencies: ["CRUDKit", "CRUDKitTesting"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
