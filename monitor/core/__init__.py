"""Building blocks every domain uses and none owns: settings parsing, ids, locks, secrets, shared clients."""
