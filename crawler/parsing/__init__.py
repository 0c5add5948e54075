"""parsing"""
