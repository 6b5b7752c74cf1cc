"""Entity resolution: candidates clustered into entities, merge decisions and their
confirmation by a model."""
