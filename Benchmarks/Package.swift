// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so nothing they need ever reaches CRUDKit's users.
// Run from this folder: `swift run -c release crudkit-benchmarks [future|json|http|crud ...] [--smoke]`.
let package = Package(
    name: "CRUDKitBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "CRUDKit", path: "..")],
    targets: [
        .executableTarget(
            name: "crudkit-benchmarks",
            dependencies: [
                .product(name: "CRUDKit", package: "CRUDKit"),
                .product(name: "CRUDKitTesting", package: "CRUDKit"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
