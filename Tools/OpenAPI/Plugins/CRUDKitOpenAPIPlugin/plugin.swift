import Foundation
import PackagePlugin

/// Generates CRUDKit models at build time from `openapi.yaml` (or `.yml`, `.json`) and `crudkit-openapi.yaml` in
/// the target's folder, so the models never go stale.
@main
struct CRUDKitOpenAPIPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let names = ["openapi.yaml", "openapi.yml", "openapi.json"]
        let documents = target.sourceFiles.map(\.url).filter { names.contains($0.lastPathComponent) }
        guard let document = documents.first else {
            Diagnostics.error("CRUDKitOpenAPIPlugin: no openapi.yaml, openapi.yml or openapi.json in \(target.name)")
            return []
        }
        let config = target.sourceFiles.map(\.url).first { $0.lastPathComponent == "crudkit-openapi.yaml" }
        let tool = try context.tool(named: "crudkit-openapi")
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedModels")
        // The files a build produces must be named up front: the generator writes every file it knows, and the
        // plugin lists them by running the same generator's dry listing.
        let listing = context.pluginWorkDirectoryURL.appending(path: "files.txt")
        var arguments = ["generate", document.path(), "--output", output.path(), "--clean"]
        if let config { arguments += ["--config", config.path()] }
        let files = try Self.expectedFiles(tool: tool.url, arguments: arguments + ["--list"], listing: listing)
        return [
            .buildCommand(
                displayName: "crudkit-openapi \(document.lastPathComponent) → \(files.count) files",
                executable: tool.url,
                arguments: arguments,
                inputFiles: [document] + (config.map { [$0] } ?? []),
                outputFiles: files.map { output.appending(path: $0) }
            )
        ]
    }

    /// Runs the generator with `--list`, which prints the names of the files it would write.
    static func expectedFiles(tool: URL, arguments: [String], listing: URL) throws -> [String] {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PluginError(message: "crudkit-openapi failed; run it by hand to see why")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter {
            $0.hasSuffix(".swift")
        }
    }
}

struct PluginError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
