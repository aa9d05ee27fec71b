import Testing

/// Tests that measure the process's resident memory, and tests that take a lot of it, one at a time: a bound on
/// the resident set means nothing while another test fills it (30,000 waiting tasks grew it by tens of MB under
/// `BackPressureTests`' measurement).
@Suite(.serialized) struct MemoryBoundTests {}
