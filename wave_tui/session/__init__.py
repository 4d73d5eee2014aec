"""The facade the front ends hold (`facade.AgentSession`) and the app's services below the UI."""
