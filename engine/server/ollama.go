package server

// ollamaRoutes registers the Ollama dialect (/api/...) (to be written).
func (s *Server) ollamaRoutes() {}
