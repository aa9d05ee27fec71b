/// Whether URLs built from a path end with a `/`.
///
/// Django REST framework expects `people/` and redirects `people` (losing a POST body on the way); most other
/// servers expect `people`. Absolute URLs are always sent as given.
public enum TrailingSlash: Sendable, Hashable {
    /// Every path ends with `/`: `people/`, `people/12/`.
    case always
    /// No path ends with `/`: `people`, `people/12`.
    case never
    /// A path string keeps a trailing `/` if it was written with one; segments get none.
    case asGiven
}
