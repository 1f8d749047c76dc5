"""`foxgeese serve`: play in the browser against any player or a person by link, watch a
tournament live, replay any game. Starlette on uvicorn; every game goes through the real referee."""
