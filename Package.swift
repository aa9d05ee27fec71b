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
        .target(name: "CRUDKit"),
        .target(name: "CRUDKitTesting", dependencies: ["CRUDKit"]),
        .executableTarget(name: "crudkit-demo", dependencies: ["CRUDKit", "CRUDKitTesting"]),
        .testTarget(
            name: "CRUDKitTests",
            dependencies: ["CRUDKit", "CRUDKitTesting"],
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
