"""mce_kit.sim"""
