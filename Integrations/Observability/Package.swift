// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CRUDKitObservability",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "CRUDKitObservability", targets: ["CRUDKitObservability"])
    ],
    dependencies: [
        .package(name: "CRUDKit", path: "../.."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        // Test target only: the end-to-end server test.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
    ],
    targets: [
        .target(
            name: "CRUDKitObservability",
            dependencies: [
                .product(name: "CRUDKit", package: "CRUDKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .executableTarget(
            name: "crudkit-observability-benchmarks",
            dependencies: [
                "CRUDKitObservability",
                .product(name: "CRUDKit", package: "CRUDKit"),
                .product(name: "CRUDKitTesting", package: "CRUDKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "CRUDKitObservabilityTests",
            dependencies: [
                "CRUDKitObservability",
                .product(name: "CRUDKit", package: "CRUDKit"),
                .product(name: "CRUDKitTesting", package: "CRUDKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
