//! Unit tests of one DSR node driven directly.
