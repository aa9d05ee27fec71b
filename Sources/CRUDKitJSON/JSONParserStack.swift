/// A stack in memory the parser manages itself: values are moved in and moved out, never copied, so gathering the
/// elements of an array or the members of an object costs no reference counting per element (a Swift array's
/// `append` and `Array(slice)` copy each element and then release the originals).
///
/// It is a plain struct holding a pointer: the owner calls ``free()`` exactly once (the parser does in a `defer`,
/// so a document that fails halfway releases what it had gathered).
struct JSONParserStack<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    /// Releases the elements still on the stack and its memory.
    func free() {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// The element on top (the stack must not be empty); valid until the next push.
    var top: UnsafeMutablePointer<Element> { base + (count - 1) }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// Removes the top element and returns it.
    @inline(__always)
    mutating func pop() -> Element {
        count -= 1
        return (base + count).move()
    }

    /// Moves the elements from position `start` up into a new array of exactly their number, and removes them.
    ///
    /// The array is reserved and then appended to (each element moved, not copied): `Array(unsafeUninitializedCapacity:)`
    /// allocates through an unspecialized path that looks the array's type up at run time on every call.
    @inline(__always)
    mutating func popArray(from start: Int) -> [Element] {
        var array: [Element] = []
        array.reserveCapacity(count - start)
        for position in start..<count { array.append((base + position).move()) }
        count = start
        return array
    }
}
