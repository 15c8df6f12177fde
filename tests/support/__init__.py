"""What several test modules (and the benches) share that is no test itself."""
