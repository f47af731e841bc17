"""memlib inside the agent frameworks people build with, each an optional extra:
`langgraph.MemlibStore` (pip install 'memlib[langgraph]'), LangGraph's long-term memory store,
and `langchain.MemlibRetriever` (pip install 'memlib[langchain]'), a LangChain retriever. Each
works on any store a `MemoryInterface` describes."""
