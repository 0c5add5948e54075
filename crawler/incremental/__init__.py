"""incremental"""
