-- The router's reading of a chat run's question, when a model made it (`agent.router = "llm"`):
-- kept so a restarted run is gated exactly as before.
ALTER TABLE runs ADD COLUMN route_json TEXT;
