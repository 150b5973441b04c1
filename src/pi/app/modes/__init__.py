"""The ways `pi` runs: print (text or JSON events) and RPC; each renders the same AgentSession events."""
