"""Platform-style client programs the external-agent tests launch as separate processes."""
